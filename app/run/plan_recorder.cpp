#include "run/plan_recorder.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <iostream>
#include <sstream>

#include "report/analysis/analysis_json.hpp"
#include "report/explain/analyze.hpp"
#include "report/render/report_outputs.hpp"
#include "report/analysis/run_stats.hpp"
#include "run/fatal_signals.hpp"
#include "run/file_reporters.hpp"
#include "run/output_dir.hpp"
#include "run/run_header.hpp"
#include "settings/vocabulary.hpp"
#include "scenario/loader.hpp"
#include "util/clock.hpp"
#include "util/terminal_text.hpp"

namespace xfer {
namespace fs = std::filesystem;

std::vector<std::string> write_report_files(const Results& results, const Analysis& analysis,
                                            const Config& config, const fs::path& dir) {
    std::vector<std::string> files;  // the table is the terminal's
    for (const auto& name : file_reporters(results, config, dir))
        if (name != "table") files.push_back(name);
    std::ostringstream unused;
    return write_reports(results, analysis, files, dir, "", unused, ReportDetail::full,
                         ReportLimits{config.trace_copies})
        .failures;
}

std::string store_analysis(const Results& results, const Analysis& analysis, const fs::path& dir) {
    if (!fs::exists(dir / kRecordStoreFile)) return "";
    try {
        std::vector<nlohmann::json> per_run(analysis.runs.begin(), analysis.runs.end());
        RecordStore(dir / kRecordStoreFile, false)
            .write_analysis(results, per_run, texts(analysis.summary));
    } catch (const std::exception& e) {
        return std::string(kRecordStoreFile) + ": the analysis could not be added: " + e.what();
    }
    return "";
}

PlanRecorder::PlanRecorder(Results& results, std::vector<RunAnalysis>& run_stats,
                           const Config& config, fs::path dir, FolderCheck folder_check)
    : results_(results),
      run_stats_(run_stats),
      config_(config),
      dir_(std::move(dir)),
      folder_check_(std::move(folder_check)) {
    results_.complete = false;
    try {
        store_ = std::make_unique<RecordStore>(dir_ / kRecordStoreFile);
        store_->write_plan(results_);
        store_ok_ = true;
    } catch (const std::exception& e) {
        failed_locked(e.what());
        store_.reset();
    }
}

RecordStore& PlanRecorder::open_store_locked() {
    if (!store_) store_ = std::make_unique<RecordStore>(dir_ / kRecordStoreFile, false);
    return *store_;
}

bool PlanRecorder::folder_held_locked() {
    if (folder_lost_) return false;
    if (!folder_check_) return true;
    const std::string problem = folder_check_();
    if (problem.empty()) return true;
    folder_lost_ = true;
    store_ok_ = false;
    store_.reset();
    failed_locked(problem);
    return false;
}

PlanRecorder::~PlanRecorder() { finish(); }

void PlanRecorder::failed_locked(const std::string& what) {
    std::cerr << "xferlab: " << what << "\n";
    if (write_failure_.empty()) write_failure_ = what;
}

bool PlanRecorder::store_written() const {
    std::lock_guard lock(mutex_);
    return store_ok_;
}

std::string PlanRecorder::write_failure() const {
    std::lock_guard lock(mutex_);
    return write_failure_;
}

void PlanRecorder::store_locked(RunResult& result) {
    if (!store_ok_) return;
    if (int64_t(result.records.size()) > config_.inline_records)
        result.records_file = kRecordStoreFile;
    try {
        open_store_locked().add_run(result);
    } catch (const std::exception& e) {
        result.records_file.clear();  // results.json keeps them after all
        failed_locked(fmt::format("{} (run {} not stored)", e.what(), result.position.index));
        store_ok_ = false;
        store_.reset();
    }
}

void PlanRecorder::journal_locked() {
    // After a failed append the journal is left as it was: a later line would follow a gap.
    if (journal_runs_ + 1 != results_.runs.size()) return;
    try {
        append_journal(dir_, results_, results_.runs.back(), journal_runs_ == 0);
        ++journal_runs_;
    } catch (const std::exception& e) {
        failed_locked(e.what());
    }
}

void PlanRecorder::rewrite_files_locked() {
    const int64_t start = now_ns();
    const bool last_run = int(results_.runs.size()) == results_.planned_runs;
    // The final write follows the last run; a rewrite too soon after the last one is skipped
    // (the journal and results.sqlite have the run). After a failure the plan stops: try now.
    if (write_failure_.empty() &&
        (last_run ||
         (last_write_end_ns_ > 0 && start - last_write_end_ns_ < 10 * last_write_cost_ns_)))
        return;
    const auto failures =
        write_report_files(results_, analyze(results_, run_stats_), config_, dir_);
    for (const auto& f : failures) failed_locked(f);
    last_write_end_ns_ = now_ns();
    last_write_cost_ns_ = last_write_end_ns_ - start;
}

std::string PlanRecorder::crash_context() const {
    std::string where = current_ ? fmt::format("during run {} ({})", current_->position.index,
                                               terminal_safe(current_->position.label))
                                 : std::string("between runs");
    // results.json may lag the journal by the rewrites skipped to save time.
    return fmt::format(
        "{}; the {} completed run(s) before it are in {}/journal.jsonl (and in results.json as "
        "last rewritten)",
        where, results_.runs.size(), dir_.string());
}

void PlanRecorder::begin(const Run& run) {
    std::lock_guard lock(mutex_);
    // A payload in this process may close any descriptor: results.sqlite is not open meanwhile.
    // (A run whose launcher the vocabulary does not know runs no payload here.)
    const LauncherDescriptor* launcher = find_launcher(run.settings.launcher);
    if (launcher && launcher->traits.takes_payload && !launcher->traits.workers_elsewhere)
        store_.reset();
    current_ = &run;
    set_crash_context(crash_context());
}

void PlanRecorder::add(RunResult result, RunAnalysis stats) {
    std::lock_guard lock(mutex_);
    const bool held = folder_held_locked();
    if (held) store_locked(result);
    results_.runs.push_back(std::move(result));
    run_stats_.push_back(std::move(stats));
    current_ = nullptr;
    if (held) {
        journal_locked();
        rewrite_files_locked();
    }
    set_crash_context(crash_context());
}

void PlanRecorder::abort_current(const std::string& what, int exit_code) {
    std::lock_guard lock(mutex_);
    const std::string why = current_
                                ? fmt::format("{} in run {} ({})", what, current_->position.index,
                                              current_->position.label)
                                : what + " between runs";
    std::cerr << "\nxferlab: " << terminal_safe(why) << "\n";
    const bool held = folder_held_locked();
    if (current_) {
        RunResult r = run_result_header(*current_);
        r.status = RunStatus::failed;
        r.errors.push_back(why + " (the run's records are lost with the process)");
        r.end_ns = now_ns();
        if (held) store_locked(r);
        run_stats_.push_back(analyze_run(r));
        results_.runs.push_back(std::move(r));
        if (held) journal_locked();
    }
    if (held)
        for (const auto& f :
             write_report_files(results_, analyze(results_, run_stats_), config_, dir_))
            failed_locked(f);
    std::cerr << fmt::format("xferlab: {} run(s) written to {}/results.json; exiting with {}\n",
                             results_.runs.size(), dir_.string(), exit_code);
    std::cerr.flush();
    std::cout.flush();
    ::_exit(exit_code);
}

void PlanRecorder::finish() {
    std::lock_guard lock(mutex_);
    current_ = nullptr;
    set_crash_context("");
    if (finished_) return;
    finished_ = true;
    if (!folder_held_locked() || !store_ok_) return;
    try {
        open_store_locked().write_plan(results_);
        store_->end_plan();
    } catch (const std::exception& e) {
        failed_locked(e.what());
    }
    store_.reset();
}

}  // namespace xfer
