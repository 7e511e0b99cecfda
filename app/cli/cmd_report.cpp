#include "cli/cmd_report.hpp"

#include <iostream>

#include "cli/cli.hpp"
#include "cli/common_options.hpp"
#include "report/explain/analyze.hpp"
#include "report/render/formats.hpp"
#include "report/render/reporter.hpp"
#include "results/results_reader.hpp"
#include "settings/vocabulary.hpp"

namespace xfer {

// Re-renders a results.json (or a results.sqlite, or a journal.jsonl) with this build's
// analysis: the raw records are all there, so a result file alone can be read again after the
// statistics improve.
CLI::App* add_report_command(CLI::App& app, ReportOptions& options) {
    auto* cmd = app.add_subcommand(
        "report",
        "Re-render a results.json, results.sqlite or journal.jsonl with this build's statistics "
        "and explanations");
    cmd->add_option("file", options.file,
                    "results.json (or results.sqlite, or journal.jsonl) written by `xferlab run`, "
                    "or the results folder that holds it")
        ->required()
        ->type_name("FILE.json|jsonl|sqlite");
    cmd->add_option("--format", options.format, join_names(format_names(), " | "))
        ->check(CLI::IsMember(format_names()));
    add_detail_flags(cmd, options.detail);
    return cmd;
}

int cmd_report(const ReportOptions& options) {
    const std::string& format = options.format;
    std::string why;
    const std::optional<ReportDetail> detail = report_detail(options.detail, format, why);
    if (!detail) {
        std::cerr << why << "\n";
        return exit_bad_input;
    }
    const std::optional<Results> results = read_results(options.file, std::cerr);
    if (!results) return exit_bad_input;
    auto reporter = make_reporter(format, *detail);
    if (!reporter) {
        std::cerr << "xferlab: unknown format '" << format << "'\n";
        return exit_bad_input;
    }
    reporter->write(*results, analyze(*results), std::cout);
    return exit_ok;
}

}  // namespace xfer
