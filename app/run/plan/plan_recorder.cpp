#include "run/plan/plan_recorder.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <iostream>

#include "report/analysis/run_stats.hpp"
#include "results/folder_files.hpp"
#include "run/fatal_signals.hpp"
#include "run/plan/run_header.hpp"
#include "settings/vocabulary.hpp"
#include "util/clock.hpp"
#include "util/terminal_text.hpp"

namespace xfer {

PlanRecorder::PlanRecorder(Results& results, PlanAnalysis& analysis, ResultsFolderWriter& folder)
    : results_(results), analysis_(analysis), folder_(folder) {
    results_.complete = false;
    folder_.begin(results_);
}

PlanRecorder::~PlanRecorder() { finish(); }

std::string PlanRecorder::write_failure() const {
    std::lock_guard lock(mutex_);
    return folder_.write_failure();
}

std::string PlanRecorder::crash_context() const {
    std::string where = current_ ? fmt::format("during run {} ({})", current_->position.index,
                                               terminal_safe(current_->position.label))
                                 : std::string("between runs");
    // The report files are written at the plan's end only: the record has the runs.
    return fmt::format("{}; the {} completed run(s) before it are in {}/{} (and in {})", where,
                       results_.runs.size(), folder_.dir().string(), kJournalFile,
                       kRecordStoreFile);
}

void PlanRecorder::begin(const Run& run) {
    std::lock_guard lock(mutex_);
    // A payload in this process may close any descriptor: no writer holds one meanwhile.
    // (A run whose launcher the vocabulary does not know runs no payload here.)
    const LauncherDescriptor* launcher = find_launcher(run.settings.launcher);
    if (launcher && launcher->traits.takes_payload && !launcher->traits.workers_elsewhere)
        folder_.release();
    current_ = &run;
    set_crash_context(crash_context());
}

void PlanRecorder::add(RunResult result, RunAnalysis stats) {
    std::lock_guard lock(mutex_);
    folder_.add_run(results_, result);
    results_.runs.push_back(std::move(result));
    analysis_.add_run(std::move(stats));
    current_ = nullptr;
    set_crash_context(crash_context());
}

void PlanRecorder::abort_current(const std::string& what, int exit_code) {
    std::lock_guard lock(mutex_);
    const std::string why = current_
                                ? fmt::format("{} in run {} ({})", what, current_->position.index,
                                              current_->position.label)
                                : what + " between runs";
    std::cerr << "\nxferlab: " << terminal_safe(why) << "\n";
    if (current_) {
        RunResult r = run_result_header(*current_);
        r.status = RunStatus::failed;
        r.errors.push_back(why + " (the run's records are lost with the process)");
        r.end_ns = now_ns();
        folder_.add_run(results_, r);
        analysis_.add_run(analyze_run(r));
        results_.runs.push_back(std::move(r));
    }
    folder_.finish(results_);  // "complete": false
    std::cerr << fmt::format("xferlab: {} run(s) written to {}/{}; exiting with {}\n",
                             results_.runs.size(), folder_.dir().string(), kResultsJsonFile,
                             exit_code);
    std::cerr.flush();
    std::cout.flush();
    ::_exit(exit_code);
}

void PlanRecorder::finish() {
    std::lock_guard lock(mutex_);
    current_ = nullptr;
    set_crash_context("");
}

}  // namespace xfer
