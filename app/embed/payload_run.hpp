#pragma once
// One payload run in one interpreter: the body of launcher "python" (and of each sub-interpreter
// of launcher python-subinterp). The payload is compiled afresh, its main(ctx) runs on a Python
// thread named xferlab-main so that a payload that hangs cannot hang xferlab: past the run's
// timeout the run is stopped (copies raise xferlab.Stopped), threads get a grace period, and what
// is still running is reported and left behind.
#include <filesystem>
#include <memory>
#include <string>

#include "launch/launcher.hpp"
#include "embed/run_state.hpp"

namespace xfer {

// Finds the run's payload in ctx.payload_dir (confined again where the file is read: worker
// processes get only the name and the folder it was found in) and reads it. False with the
// reason in ctx.errors.
bool read_run_payload(RunContext& ctx, std::filesystem::path& path, std::string& source);

// Runs `source` for `state`'s workers in the calling thread's interpreter, which must be
// started; the thread must not hold its GIL (it is taken here). Failures (syntax error, no
// main, exceptions in main or in a thread, timeout) go to ctx.errors with the Python traceback,
// the payload's notes to ctx.notes, its labels, checks and skip to ctx.
void run_payload(RunContext& ctx, std::shared_ptr<RunState> state, const std::string& source);

}  // namespace xfer
