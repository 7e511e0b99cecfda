#include "run/plan_recorder.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <iostream>
#include <sstream>

#include "report/analysis_json.hpp"
#include "report/report_outputs.hpp"
#include "run/fatal_signals.hpp"
#include "run/file_reporters.hpp"
#include "run/output_dir.hpp"
#include "run/run_header.hpp"
#include "scenario/loader.hpp"
#include "util/clock.hpp"

namespace xfer {
namespace fs = std::filesystem;

bool write_report_files(const Results& results, const Config& config, const fs::path& dir,
                        bool quiet_errors) {
    std::vector<std::string> files;  // the table is the terminal's
    for (const auto& name : file_reporters(results, config, dir))
        if (name != "table") files.push_back(name);
    std::ostringstream unused;
    const ReportsWritten written =
        write_reports(results, analyze(results), files, dir, "", unused, ReportDetail::full,
                      ReportLimits{config.trace_copies});
    if (!quiet_errors)
        for (const auto& f : written.failures) std::cerr << "xferlab: writing " << f << "\n";
    return written.failures.empty();
}

void store_analysis(const Results& results, const Analysis& analysis, const fs::path& dir) {
    if (!fs::exists(dir / kRecordStoreFile)) return;
    try {
        std::vector<nlohmann::json> per_run(analysis.runs.begin(), analysis.runs.end());
        RecordStore(dir / kRecordStoreFile, false)
            .write_analysis(results, per_run, analysis.summary);
    } catch (const std::exception& e) {
        std::cerr << "xferlab: the analysis could not be added to results.sqlite: " << e.what()
                  << "\n";
    }
}

PlanRecorder::PlanRecorder(Results& results, const Config& config, fs::path dir)
    : results_(results), config_(config), dir_(std::move(dir)) {
    results_.complete = false;
    try {
        store_ = std::make_unique<RecordStore>(dir_ / kRecordStoreFile);
        store_->write_plan(results_);
    } catch (const std::exception& e) {
        std::cerr << "xferlab: " << e.what() << "; the runs are kept in results.json and "
                  << kJournalFile << " only\n";
        store_.reset();
    }
}

PlanRecorder::~PlanRecorder() { finish(); }

void PlanRecorder::store_locked(RunResult& result) {
    if (!store_) return;
    if (int64_t(result.records.size()) > config_.inline_records)
        result.records_file = kRecordStoreFile;
    try {
        store_->add_run(result);
    } catch (const std::exception& e) {
        result.records_file.clear();  // results.json keeps them after all
        std::cerr << "xferlab: " << e.what() << "; results.sqlite stops at run " << result.index
                  << "\n";
        store_.reset();
    }
}

std::string PlanRecorder::crash_context() const {
    std::string where = current_
                            ? fmt::format("during run {} ({})", current_->index, current_->label)
                            : std::string("between runs");
    // results.json may lag the journal by the rewrites skipped to save time.
    return fmt::format(
        "{}; the {} completed run(s) before it are in {}/journal.jsonl (and in results.json as "
        "last rewritten)",
        where, results_.runs.size(), dir_.string());
}

void PlanRecorder::begin(const Run& run) {
    std::lock_guard lock(mutex_);
    current_ = &run;
    set_crash_context(crash_context());
}

void PlanRecorder::add(RunResult result) {
    std::lock_guard lock(mutex_);
    store_locked(result);
    results_.runs.push_back(std::move(result));
    current_ = nullptr;
    try {
        append_journal(dir_, results_, results_.runs.back());
    } catch (const std::exception& e) {
        std::cerr << "xferlab: " << e.what() << "\n";
    }
    const int64_t start = now_ns();
    const bool last_run = int(results_.runs.size()) == results_.planned_runs;
    if (last_run ||
        (last_write_end_ns_ > 0 && start - last_write_end_ns_ < 10 * last_write_cost_ns_)) {
        set_crash_context(crash_context());
        return;  // the final write follows, or too soon after the last rewrite: the journal
                 // and results.sqlite have this run
    }
    if (!write_report_files(results_, config_, dir_, warned_) && !warned_) {
        std::cerr << "xferlab: the results files could not be rewritten after run "
                  << results_.runs.back().index
                  << "; the journal and the final write are still attempted\n";
        warned_ = true;
    }
    last_write_end_ns_ = now_ns();
    last_write_cost_ns_ = last_write_end_ns_ - start;
    set_crash_context(crash_context());
}

void PlanRecorder::abort_current(const std::string& what, int exit_code) {
    std::lock_guard lock(mutex_);
    const std::string why =
        current_ ? fmt::format("{} in run {} ({})", what, current_->index, current_->label)
                 : what + " between runs";
    std::cerr << "\nxferlab: " << why << "\n";
    if (current_) {
        RunResult r = run_result_header(*current_);
        r.status = RunStatus::failed;
        r.errors.push_back(why + " (the run's records are lost with the process)");
        r.end_ns = now_ns();
        store_locked(r);
        results_.runs.push_back(std::move(r));
        try {
            append_journal(dir_, results_, results_.runs.back());
        } catch (const std::exception& e) {
            std::cerr << "xferlab: " << e.what() << "\n";
        }
    }
    write_report_files(results_, config_, dir_);
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
    if (!store_) return;
    try {
        store_->write_plan(results_);
        store_->end_plan();
    } catch (const std::exception& e) {
        std::cerr << "xferlab: " << e.what() << "\n";
    }
    store_.reset();
}

}  // namespace xfer
