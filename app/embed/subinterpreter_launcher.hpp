#pragma once
// Launcher python-subinterp's workers, in the process that runs them (a worker process: of
// xferlab itself where its Python can, else of xferlab-py313, remote/interpreter_launchers.cpp).
#include <memory>

#include "launch/launcher.hpp"

namespace xfer {

// One sub-interpreter per worker, each with its own GIL (PEP 684), the payload's main(ctx) run
// in each with ctx.threads = 1 (as in each worker process of launcher "process"): the same copy
// routine, w API and records as launcher python, with no GIL shared between the workers. Its
// workers are this process's. Where this build cannot (subinterpreters_unsupported()), its
// runs are skipped with the reason.
std::unique_ptr<Launcher> make_subinterpreter_launcher();

}  // namespace xfer
