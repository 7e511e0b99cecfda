#pragma once
// Runs some of a run's workers in this process: what a worker process (launcher "process") or
// an MPI rank (launcher "mpi") does with its share. The workers copy through the same routine as
// every other launcher; the start gate is opened by `coordinate`, which syncs with the other
// processes first.
#include <atomic>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "launch/execute_workers.hpp"
#include "launch/merge_notes.hpp"
#include "results/record.hpp"
#include "scenario/scenario.hpp"
#include "system/thread_info.hpp"

namespace xfer {

class Backend;

// What this process's share of a run measured (sent to the parent or to rank 0).
using LocalOutcome = WorkersOutcome;

// `indices`: the workers (indices in the whole run) this process runs. A payload run executes
// the payload with those workers in ctx.workers (python-ft: in this free-threaded interpreter;
// python-subinterp: one sub-interpreter per worker); otherwise each worker gets a pthread with
// the run's thread settings, labelled `label` in its ThreadInfo. Never throws: failures land in
// the outcome's errors. `watcher` (may be null) sees the records while the workers copy.
LocalOutcome run_local_workers(const Run& run, Backend& backend, const std::vector<int>& indices,
                               const std::filesystem::path& payload_dir, std::atomic<bool>& stop,
                               const std::string& label, const GateCoordinator& coordinate,
                               RecordWatcher* watcher = nullptr);

// A worker process's or rank's payload facts (w.timed labels, with its records' Record::source
// renumbered into the run's, device copies, w.verified, ctx.skip) into the run's context.
// Call before the records are added to ctx.remote_records.
void merge_payload_facts(LocalOutcome& outcome, RunContext& ctx);

nlohmann::json to_json(const LocalOutcome& outcome);
LocalOutcome local_outcome_from_json(const nlohmann::json& j);

}  // namespace xfer
