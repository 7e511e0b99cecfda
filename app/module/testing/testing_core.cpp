// The test build of the extension module xferlab._core (build/python-testing/xferlab, never
// installed): the transfer API of the product, and the submodule _testing with the fake device
// that the pytest suite of tests/module runs on in CI.
#include <pybind11/pybind11.h>

#include "module/bindings.hpp"
#include "module/testing/testing_bindings.hpp"

PYBIND11_MODULE(_core, m) {
    m.doc() =
        "xferlab's staging engine, test build: the product's copy() and Engine, and "
        "_testing, a fake device in host memory.";
    xfer::pyapi::bind_transfer_api(m);
    xfer::pyapi::bind_testing(m);
}
