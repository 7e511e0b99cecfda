#pragma once
// Launchers that run the payload in another kind of interpreter than this xferlab's own, in one
// worker process that holds every worker of the run (remote/worker_processes.hpp), records
// merged as for launcher "process".
#include <memory>

#include "launch/launcher.hpp"

namespace xfer {

// python-ft: the python launcher in xferlab-ft, a free-threaded CPython (no GIL, PEP 703).
// Skipped with the reason where there is no xferlab-ft (and this xferlab is not free-threaded
// itself).
std::unique_ptr<Launcher> make_free_threaded_launcher();
// python-subinterp: one sub-interpreter with its own GIL per worker (PEP 684), in a worker
// process of this xferlab where its Python can, else of xferlab-py313; skipped with the reason
// where neither can.
std::unique_ptr<Launcher> make_subinterpreter_process_launcher();

}  // namespace xfer
