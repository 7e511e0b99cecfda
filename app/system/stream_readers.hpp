#pragma once
// Whether what xferlab writes to stdout and stderr still has a reader. `xferlab run many.toml
// 2>&1 | head -1` closes the pipe once head has its line: before issue 54 the next progress line
// raised SIGPIPE and ended the plan silently (exit 141, results.json "complete": false, the lock
// left). `run` now ignores SIGPIPE and asks this between runs, so that a plan whose reader went
// away stops as on SIGINT (system/stop_signal.hpp), its files written.
#include <string>

namespace xfer {

// "stderr" or "stdout" (stderr first) when that descriptor is a pipe or socket whose reader has
// gone (the kernel reports POLLERR or POLLHUP on its write end); "" when both have a reader or
// are not pipes (a terminal, a file). Reads nothing and writes nothing.
std::string standard_stream_without_reader();

}  // namespace xfer
