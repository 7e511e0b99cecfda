#pragma once
// Keeps a plan's runs as they complete: each one handed to the results folder's writers
// (results/results_folder_writer.hpp: results.sqlite and the journal at once, the report files
// at the plan's end) and its analysis kept beside it; and names the run in progress for the
// crash handler and for a payload's os._exit, after which the run is recorded as failed and the
// files written before the process ends.
#include <mutex>
#include <string>

#include "report/explain/plan_analysis.hpp"
#include "results/results_folder_writer.hpp"
#include "results/run_result.hpp"
#include "scenario/scenario.hpp"

namespace xfer {

class PlanRecorder {
  public:
    // `results` holds the plan's header: the folder's writers begin with it.
    PlanRecorder(Results& results, PlanAnalysis& analysis, ResultsFolderWriter& folder);
    ~PlanRecorder();
    PlanRecorder(const PlanRecorder&) = delete;
    PlanRecorder& operator=(const PlanRecorder&) = delete;

    // `run` starts: a crash or os._exit from here on names it. A payload in this process may
    // close any descriptor: the writers hold none while it runs.
    void begin(const Run& run);
    // `result` completed (`stats`: its analyze_run): on disk in the plan's record at once, kept
    // in `results` and the analysis for the report files at the end.
    void add(RunResult result, RunAnalysis stats);
    // The run in progress cannot finish (os._exit from a payload): records it as failed with
    // "`what` in run N (label)" (printed too), writes every file as at the plan's end (marked
    // incomplete) and ends the process with `exit_code`.
    [[noreturn]] void abort_current(const std::string& what, int exit_code);
    // The plan's runs are over: later crashes are no longer attributed to a run. The files'
    // end is written by the caller (ResultsFolderWriter::finish), once the header is final.
    void finish();

    // The first write of the plan's record that failed (ResultsFolderWriter::write_failure);
    // empty while every write succeeded. The plan stops at the first (execute_plan): runs that
    // cannot be kept are not worth running.
    std::string write_failure() const;

  private:
    std::string crash_context() const;

    Results& results_;
    PlanAnalysis& analysis_;
    ResultsFolderWriter& folder_;
    mutable std::mutex mutex_;  // add() on the main thread against abort_current() on a payload's
    const Run* current_ = nullptr;
};

}  // namespace xfer
