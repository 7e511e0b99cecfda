// The extension module xferlab._core: xferlab's transfer API (copy, Engine, Error) for a user's
// own program; python/xferlab/__init__.py re-exports it as `xferlab`.
#include <pybind11/pybind11.h>

#include "module/bindings.hpp"

// Declared safe without the GIL where pybind11 can say so (2.13): under free-threaded CPython
// (3.13t) importing it then leaves the GIL off. The engines, the shared-engine table and the
// platform choice keep their own locks; the interned names a copy looks up are made at import
// (bind_transfer_api); a copy's views are read from the caller's own objects and the copy runs
// detached from the interpreter. Tested by python/module_free_threaded (host copies only).
#if PYBIND11_VERSION_HEX >= 0x020D0000
PYBIND11_MODULE(_core, m, pybind11::mod_gil_not_used()) {
#else
PYBIND11_MODULE(_core, m) {
#endif
    m.doc() =
        "xferlab's staging engine: copy(dst, src) between host and device memory at the "
        "rate of page-locked memory, from any thread, the GIL released.";
    xfer::pyapi::bind_transfer_api(m);
}
