#pragma once
// A plan's results folder as the config asks for it: the writers (results.sqlite and the
// journal run by run, each format of output.reporters at the end) and the closing lines that
// say what was written.
#include <filesystem>
#include <iosfwd>
#include <memory>
#include <string>

#include "report/explain/plan_analysis.hpp"
#include "results/results_folder_writer.hpp"
#include "run/config.hpp"

namespace xfer {

// The writers of `dir`: results.sqlite (with the analysis at the end) and journal.jsonl, and a
// file per format of config.reporters (output.inline_records and output.trace_copies as the
// config says), all from `analysis`, which must outlive them. `check` says before every
// write whether the folder is still this run's (none: always).
std::unique_ptr<ResultsFolderWriter> results_folder_writer(
    const std::filesystem::path& dir, const Config& config, PlanAnalysis& analysis,
    ResultsFolderWriter::FolderCheck check = {});

// "results: DIR/ (results.json, copies.csv, runs.csv, trace.json, results.sqlite<extra>)": the
// report files `finished` wrote, and results.sqlite when it is there (it is written run by
// run); then a "note: " line for each file left out.
void say_results_written(const std::filesystem::path& dir, const FolderFinished& finished,
                         const std::string& extra, std::ostream& said);

}  // namespace xfer
