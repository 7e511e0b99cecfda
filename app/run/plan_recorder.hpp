#pragma once
// Keeps a plan's results on disk as it runs: every completed run is one transaction in
// results.sqlite (results/record_store.hpp) and one line of the journal, and every reporter's
// file is rewritten atomically, marked incomplete ("complete":
// false in results.json); the final write marks it complete. Each rewrite holds every run so
// far, so a plan of many short runs would spend most of its time rewriting (800 runs of 4 KiB
// copies: 577 s): a rewrite is skipped while less than 10 times the last one's cost has passed
// since it, which bounds the overhead to about 10%, and after the plan's last run (the final
// write follows); results.sqlite and the journal still get every run. A run of more than
// output.inline_records copies keeps its records in results.sqlite only (and the plan then
// writes no copies.csv: run/file_reporters.hpp). A crash, SIGKILL or a payload's os._exit then
// leaves every completed run in results.json, copies.csv (while written), trace.json,
// results.sqlite and the journal, and a report that `xferlab report` can read.
#include <filesystem>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "report/analysis/analysis.hpp"
#include "results/record_store.hpp"
#include "results/run_result.hpp"
#include "run/config.hpp"
#include "scenario/scenario.hpp"

namespace xfer {

class PlanRecorder {
  public:
    // Whether the output folder is still this run's ("" when it is; else why not): asked
    // before every write, since a payload ran in the process since the last one
    // (run/output_lock.hpp: OutputLock::check). A folder lost stops the plan like a failed
    // write, and nothing more is written under its name.
    using FolderCheck = std::function<std::string()>;

    // `run_stats` gets each added run's own analysis, beside `results.runs`.
    PlanRecorder(Results& results, std::vector<RunAnalysis>& run_stats, const Config& config,
                 std::filesystem::path dir, FolderCheck folder_check = {});
    ~PlanRecorder();
    PlanRecorder(const PlanRecorder&) = delete;
    PlanRecorder& operator=(const PlanRecorder&) = delete;

    // `run` starts: a crash or os._exit from here on names it.
    void begin(const Run& run);
    // `result` completed (`stats`: its analyze_run): kept in memory, appended to the journal,
    // the files rewritten.
    void add(RunResult result, RunAnalysis stats);
    // The run in progress cannot finish (os._exit from a payload): records it as failed with
    // "`what` in run N (label)" (printed too), writes everything and ends the process with
    // `exit_code`.
    [[noreturn]] void abort_current(const std::string& what, int exit_code);
    // The plan is over: later crashes are no longer attributed to a run; results.sqlite gets
    // the plan's final header (complete, interrupted, devices).
    void finish();

    // The first write that failed, as "<file>: <why>" (empty while every write succeeded):
    // results.sqlite, journal.jsonl or a reporter's file. The plan stops at the first
    // (execute_plan): runs that cannot be kept are not worth running.
    std::string write_failure() const;
    // Whether results.sqlite holds the plan as it went (false once a write to it failed, or
    // when the folder was lost): the analysis is added to it only then.
    bool store_written() const;

  private:
    std::string crash_context() const;
    RecordStore& open_store_locked();             // opened again where it was closed
    bool folder_held_locked();                    // false once the folder is lost (said once)
    void store_locked(RunResult& result);         // into results.sqlite
    void journal_locked();                        // the last run into journal.jsonl
    void rewrite_files_locked();                  // every file reporter, when the last write allows
    void failed_locked(const std::string& what);  // keeps the first failure, prints each

    Results& results_;
    std::vector<RunAnalysis>& run_stats_;  // beside results_.runs
    const Config& config_;
    std::filesystem::path dir_;
    FolderCheck folder_check_;
    bool folder_lost_ = false;
    mutable std::mutex mutex_;  // add() on the main thread against abort_current() on a payload's
    const Run* current_ = nullptr;
    // results.sqlite, held open between writes, but closed before a run that executes a payload
    // in this process (launcher python): a payload that closes every descriptor
    // (os.closerange(3, 1024)) left SQLite writing through numbers that named other files by
    // then ("locking protocol", the run lost). Opened again at the next write; holding it
    // across native runs keeps a plan of many short runs cheap (each reopening costs the
    // write-ahead log's checkpoint and its fsyncs).
    std::unique_ptr<RecordStore> store_;
    bool store_ok_ = false;  // false once results.sqlite could not be written
    bool finished_ = false;  // finish() ran (the destructor calls it again)
    std::string write_failure_;
    // Completed runs appended to the journal (the first N of results_.runs): a line after a
    // failed one would follow a gap.
    size_t journal_runs_ = 0;
    int64_t last_write_end_ns_ = 0;
    int64_t last_write_cost_ns_ = 0;
};

// Every file reporter of `config` into `dir` (the table is the terminal's), from `analysis`.
// Returns one "<reporter>: <why>" per file that could not be written.
std::vector<std::string> write_report_files(const Results& results, const Analysis& analysis,
                                            const Config& config,
                                            const std::filesystem::path& dir);

// Adds `analysis` to `dir`/results.sqlite when the plan wrote one. Returns why it could not
// (empty: added, or no results.sqlite).
std::string store_analysis(const Results& results, const Analysis& analysis,
                           const std::filesystem::path& dir);

}  // namespace xfer
