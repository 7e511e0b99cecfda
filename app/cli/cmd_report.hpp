#pragma once
#include <CLI/CLI.hpp>
#include <string>

#include "cli/common_options.hpp"

namespace xfer {

struct ReportOptions {
    std::string file;
    std::string format = "table";  // --format: a reporter
    DetailFlags detail;            // --brief, --full
};

CLI::App* add_report_command(CLI::App& app, ReportOptions& options);

// `xferlab report`: re-render a results.json or journal.jsonl with this build's analysis, as
// detailed as the flags say.
int cmd_report(const ReportOptions& options);

}  // namespace xfer
