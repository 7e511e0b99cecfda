#pragma once
// `xferlab run` once its arguments are parsed: every scenario file loaded, sized (--fit) and
// preflighted, and (rank 0) its results folder taken, all agreed by every MPI rank before the
// first run starts; then each file's plan run into its folder and reported.
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "report/render/reporter.hpp"
#include "results/run_result.hpp"
#include "run/config.hpp"

namespace xfer {

struct RunFilesOptions {
    std::vector<std::string> files;
    std::vector<std::string> sets;                // --set key=value
    std::optional<std::string> out;               // --out DIR
    std::string format;                           // the report on the terminal: table | json | csv
    bool quiet = false;                           // no progress line, no list of files written
    bool fit = false;                             // smaller copies when the plan does not fit
    bool force = false;                           // delete an earlier run's files in the folder
    ReportDetail detail = ReportDetail::concise;  // how much the table says
};

// What follows a plan's reports in its folder (the figures, drawn by the caller); not called
// for an interrupted plan nor when the results could not be written.
using AfterReports = std::function<void(const Results& results, const std::filesystem::path& dir)>;

// Joins the MPI job (when there is one), runs every file and leaves the job. Returns the exit
// code (run/exit_codes.hpp); everything it has to say goes to stderr, the reports to stdout.
int run_files(const RunFilesOptions& options, const Config& config, const AfterReports& after);

}  // namespace xfer
