#pragma once
#include <memory>

#include "launch/launcher.hpp"

namespace xfer {

// Launcher "python": reads the run's payload from disk, executes it as a fresh module and
// runs its main(ctx) on a Python thread named xferlab-main; the payload creates the worker
// threads. Failures (missing file, syntax error, no main, exceptions in main or in a thread,
// timeout) go to ctx.errors with the Python traceback. `thread_label` is ThreadInfo::launcher
// of the threads that enter workers: "python", or "python-ft" in the worker process of
// launcher python-ft (the same launcher in a free-threaded interpreter).
std::unique_ptr<Launcher> make_python_launcher(const std::string& thread_label = "python");

// Launcher "host+gil": host pthreads (the host launcher's attributes and loop) that attach to
// the interpreter and hand the GIL off around every copy as a Python thread calling w.copy()
// does: held between copies, released for the copy (gil = release) or held across (hold).
std::unique_ptr<Launcher> make_host_gil_launcher();

}  // namespace xfer
