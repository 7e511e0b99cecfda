#pragma once
// Where reports go: the one function that fans a run's results out to the results folder's
// files and to the terminal. Every reporter writes to a stream; files are written atomically.
#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

#include "report/analysis/analysis.hpp"
#include "report/render/reporter.hpp"
#include "results/run_result.hpp"

namespace xfer {

struct ReportsWritten {
    std::vector<std::filesystem::path> files;  // written, in the order asked
    std::vector<std::string> failures;         // "<reporter>: <why>", one per file not written
};

// Reporter `name` into `dir`/<its file> (settings/vocabulary.cpp names it), atomically. Throws
// std::runtime_error for a reporter that writes no file, std::system_error when writing fails.
std::filesystem::path write_report_file(const std::string& name, const Results& results,
                                        const Analysis& analysis, const std::filesystem::path& dir,
                                        const ReportLimits& limits = {});

// Every reporter in `files` into `dir` (a failure of one does not stop the others), then, when
// `terminal` is not empty, that format on `out`, as detailed as `detail` says (files are always
// complete).
ReportsWritten write_reports(const Results& results, const Analysis& analysis,
                             const std::vector<std::string>& files,
                             const std::filesystem::path& dir, const std::string& terminal,
                             std::ostream& out, ReportDetail detail = ReportDetail::full,
                             const ReportLimits& limits = {});

}  // namespace xfer
