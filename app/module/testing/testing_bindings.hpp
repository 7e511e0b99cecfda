#pragma once
// The test build's submodule `_testing` (never in the installed module): the fake device of
// xferlab's own tests, host memory that the module treats as device memory and copies through the
// same staging engine, with fault injection and a registry of a test's own.
#include <pybind11/pybind11.h>

namespace xfer::pyapi {

void bind_testing(pybind11::module_& m);

}  // namespace xfer::pyapi
