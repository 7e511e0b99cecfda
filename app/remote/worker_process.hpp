#pragma once
// The entry point of a worker process of launcher "process" (`xferlab worker`, hidden).

namespace xfer {

// Reads its job from the parent (remote/worker_protocol.hpp), runs its worker, sends back what
// it measured. Returns the process exit code (2 when started by hand, without a job).
int run_worker_process();

}  // namespace xfer
