// The extension module xferlab._core: xferlab's transfer API (copy, Engine, Error) for a user's
// own program; python/xferlab/__init__.py re-exports it as `xferlab`.
#include <pybind11/pybind11.h>

#include "module/bindings.hpp"

PYBIND11_MODULE(_core, m) {
    m.doc() = "xferlab's staging engine: copy(dst, src) between host and device memory at the "
              "rate of page-locked memory, from any thread, the GIL released.";
    xfer::pyapi::bind_transfer_api(m);
}
