#pragma once
#include <CLI/CLI.hpp>
#include <string>

namespace xfer {

struct ReportOptions {
    std::string file;
    std::string format = "table";  // --format: a reporter
    bool brief = false;            // --brief
};

CLI::App* add_report_command(CLI::App& app, ReportOptions& options);

// `xferlab report`: re-render a results.json or journal.jsonl with this build's analysis;
// `brief`: the table's runs, bandwidth and summary only.
int cmd_report(const std::string& file, const std::string& format, bool brief = false);

}  // namespace xfer
