#pragma once
// The one lifecycle of a plan's results folder: every format's writer (results_writer.hpp)
// begun with the plan, given each completed run as it ends, finished with the plan. The record
// of the plan, kept run by run, is results.sqlite (one transaction per run) and journal.jsonl
// (one fsync'd line per run): a kill at any moment leaves every completed run in both, and
// `xferlab report DIR` reads them while the plan runs. The reports (results.json, copies.csv,
// runs.csv, trace.json: the formats handed in) are documents about the whole plan and are
// written once, at the end. A run of more than `inline_records` copies keeps its records in
// results.sqlite only: the other formats name that file instead of holding them.
//
// Every write is checked. The first failure of the record (or a folder that is no longer this
// run's) is kept as write_failure() and said at once; the writer that failed is called no
// more, so that nothing follows from it (a journal line after a failed one would follow a gap;
// an analysis added to a store whose creation failed fails again). The plan stops there
// (execute_plan). The reports are still written at the end, each failure said apart.
#include <filesystem>
#include <functional>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "results/journal_writer.hpp"
#include "results/record_store_writer.hpp"
#include "results/results_writer.hpp"

namespace xfer {

// What the end of the plan wrote.
struct FolderFinished {
    // Why nothing was written: the folder is no longer this run's ("" when it is).
    std::string folder_lost;
    std::vector<std::filesystem::path> reports;  // the report files written, in their order
    std::vector<std::string> failures;           // "<name>: <why>", one per writer that failed
    std::vector<std::string> notes;              // why a report left its file out
};

class ResultsFolderWriter {
  public:
    // "" while the folder is still this run's, else why not: asked before every write, since
    // a payload may have run in the process since the last one (run/output/output_lock.hpp).
    using FolderCheck = std::function<std::string()>;

    struct Options {
        int64_t inline_records = 10000;  // output.inline_records
        // results.sqlite's analysis at the end (none: its analysis table stays empty).
        RecordStoreWriter::AnalysisOf store_analysis;
        FolderCheck folder_check;  // none: the folder is never lost
    };

    // `reports`: the formats written at the end, in the order their files are named.
    // Failures are said on `said` ("xferlab: ..." lines).
    ResultsFolderWriter(std::filesystem::path dir,
                        std::vector<std::unique_ptr<ResultsWriter>> reports, Options options,
                        std::ostream& said);
    ~ResultsFolderWriter();
    ResultsFolderWriter(const ResultsFolderWriter&) = delete;
    ResultsFolderWriter& operator=(const ResultsFolderWriter&) = delete;

    const std::filesystem::path& dir() const { return dir_; }

    // The plan starts (`plan`: its header, no run).
    void begin(const Results& plan);
    // `run` completed and follows the runs of `plan`: into results.sqlite (setting
    // run.records_file when its records stay there only; cleared again when the store failed,
    // so that results.json keeps them after all), then the journal, then the other formats.
    void add_run(const Results& plan, RunResult& run);
    // A payload runs in this process next: no writer holds a descriptor until the next write.
    void release();
    // The plan is over (`results`: every run, the final header): each report's file, then
    // results.sqlite's end (header, analysis). Failures are said ("xferlab: writing <f>") and
    // returned. Once only: later calls write nothing.
    FolderFinished finish(const Results& results);

    // The first failure of the plan's record (results.sqlite, the journal, a lost folder) as
    // "<what>"; "" while every write succeeded.
    const std::string& write_failure() const { return write_failure_; }

  private:
    struct Writer;
    bool folder_held(bool say);
    void failed(Writer& w, const std::string& what);

    std::filesystem::path dir_;
    Options options_;
    std::ostream& said_;
    std::vector<Writer> writers_;  // results.sqlite, the journal, then the reports
    std::string folder_lost_;
    std::string write_failure_;
    bool finished_ = false;
};

}  // namespace xfer
