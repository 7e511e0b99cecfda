#pragma once
// A run's workers in processes of their own: what launchers "process" (one process per
// worker, of this executable), python-ft and python-subinterp (one process holding every
// worker, of an executable built against another interpreter) share.
#include <filesystem>
#include <string>
#include <vector>

#include "launch/launcher.hpp"

namespace xfer {

struct WorkerProcessPlan {
    std::filesystem::path executable;  // started as `<executable> worker`
    std::string name;                  // its argv[0]: "xferlab", "xferlab-ft"
    std::vector<int> workers;          // the run's workers it runs (indices in the whole run)
    // It embeds the Python this process chose (python.executable): true for this executable,
    // false for a sibling built against another interpreter.
    bool parent_python = true;
};

// Starts one process per plan (remote/worker_protocol.hpp), opens the start barrier across them
// when every one is ready, forwards a stop (SIGINT/SIGTERM), enforces the run's timeout from the
// outside, and merges what they measured into ctx (remote_records, remote_threads, helper
// threads, the payload's facts, errors; notes said once, "each of 4 worker processes: ...").
// A process that dies is reported with its workers and signal or status, and the records of
// the batches it sent are kept.
void run_worker_processes(RunContext& ctx, const std::vector<WorkerProcessPlan>& plans);

// For the launcher's note: "records merged on the shared CLOCK_MONOTONIC", or "no records came
// back" (a skipped run sends none: "merged" only where there was something to merge).
const char* how_records_came_back(const RunContext& ctx);

}  // namespace xfer
