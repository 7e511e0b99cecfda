#pragma once
// One scenario's plan, run from start to end: every run through the PlanRunner, each completed
// run on disk before the next starts (PlanRecorder: results.sqlite and the journal), the
// progress line on stderr, a payload's output copied into the results folder, a payload's
// os._exit recorded as a failed run. The report files are the caller's to finish, once it has
// said how the plan ended (ResultsFolderWriter::finish).
#include <atomic>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "report/explain/plan_analysis.hpp"
#include "results/results_folder_writer.hpp"
#include "results/run_result.hpp"
#include "run/plan/plan_runner.hpp"
#include "scenario/scenario.hpp"

namespace xfer {

struct PlanExecution {
    Results results;      // complete; interrupted when a stop was asked for
    bool failed = false;  // a run failed
    // The first write of the results that failed ("<file>: <why>"; empty: none). The plan
    // stopped there (results/runs_on_disk.hpp reads back which completed runs reached which
    // file).
    std::string write_failure;
    // "stderr" or "stdout" when the plan stopped because that stream's reader had gone (a
    // closed pipe: system/stream_readers.hpp); "" otherwise.
    std::string reader_gone;
};

// `folder` writes into a folder that exists and is writable (run/output/output_dir.hpp) and has not
// begun; `analysis` gets each run's analysis as it ends. `sizing` is `run --fit`'s record (or
// null). `exit_code_on_payload_exit` is the process's exit status after a payload's os._exit.
PlanExecution execute_plan(PlanRunner& runner, const Scenario& scenario,
                           const std::vector<Run>& plan, ResultsFolderWriter& folder,
                           PlanAnalysis& analysis, nlohmann::json sizing, bool show_progress,
                           const std::atomic<bool>& stop, int exit_code_on_payload_exit);

// An MPI rank other than 0: takes part in the plan's mpi runs only (rank 0 runs the rest and
// reports).
void follow_plan_as_rank(PlanRunner& runner, const std::vector<Run>& plan);

}  // namespace xfer
