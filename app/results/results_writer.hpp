#pragma once
// One format of a results folder (journal.jsonl, results.sqlite, results.json, copies.csv,
// runs.csv, trace.json), fed as the plan goes, the way Google Benchmark's reporters are given a
// context, then the runs, then told to finalize: begin() once with the plan's header, add_run()
// once per completed run in the plan's order, finish() once with every run. A format that keeps
// each run as it comes writes it in add_run() (the journal's line, results.sqlite's
// transaction); a format that is one document about the whole plan (results.json and the other
// report files, whose analysis compares the runs) writes it once, in finish(). Nothing is
// rewritten per run. ResultsFolderWriter (results_folder_writer.hpp) drives every writer of a
// folder and says what failed.
#include <filesystem>
#include <string>

#include "results/run_result.hpp"

namespace xfer {

class ResultsWriter {
  public:
    virtual ~ResultsWriter() = default;
    // What a failure at the plan's end is said under ("json", "results.sqlite").
    virtual std::string name() const = 0;
    // Its file in the results folder.
    virtual std::filesystem::path path() const = 0;
    // The plan starts: `plan` is its header (tool, host, scenario, planned runs) and no run.
    // Every call throws std::exception saying what failed; a writer that threw is called no
    // more (its file is left as it is).
    virtual void begin(const Results& plan) = 0;
    // `run` completed; `plan` is the header with the runs before it.
    virtual void add_run(const Results& plan, const RunResult& run) = 0;
    // A payload runs in this process next and may close any descriptor (os.closerange):
    // nothing is held open until the next call.
    virtual void release() {}
    // The plan is over: `results` holds every run and the final header (complete,
    // interrupted, devices). Returns false when this format leaves its file out for these
    // results (note() says why), true otherwise.
    virtual bool finish(const Results& results) = 0;
    // Why finish() left the file out; "" when it did not.
    virtual std::string note() const { return ""; }
};

}  // namespace xfer
