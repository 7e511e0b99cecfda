#pragma once
// The transfer API of the Python module `xferlab`, one set of bindings for both of its homes:
// the extension module a user's program imports (app/module/ext/core.cpp: xferlab._core), and
// the module built into `xferlab run` (app/embed/module.cpp), so that a payload and a user's
// program are written alike. Adds to `m`: copy(dst, src, *, stream=None), class Engine, Error
// (a RuntimeError) and _shutdown. The tests' fake device is bound only into the test build's
// module (module/testing/).
#include <pybind11/pybind11.h>

#include "module/module_engine.hpp"

namespace xfer::pyapi {

// `probes`: what measures the engines made in this home (xferlab run's: their DMAs join the
// payload's w.timed() blocks); none in the extension module.
void bind_transfer_api(pybind11::module_& m, StatsProbeMaker probes = {});

}  // namespace xfer::pyapi
