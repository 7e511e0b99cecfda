#include "cli/cmd_compare.hpp"

#include <CLI/CLI.hpp>
#include <iostream>

#include "cli/cli.hpp"
#include "cli/report_input.hpp"
#include "report/results_compare.hpp"

namespace xfer {

CLI::App* add_compare_command(CLI::App& app, CompareOptions& options) {
    auto* cmd = app.add_subcommand(
        "compare",
        "Compare two results files run by run (paired by label): ratio, 95% CI and verdict "
        "across trials, B against A");
    cmd->add_option("A", options.a, "results.json (or journal.jsonl): the reference")
        ->required()
        ->type_name("A.json");
    cmd->add_option("B", options.b, "results.json (or journal.jsonl): judged against A")
        ->required()
        ->type_name("B.json");
    cmd->add_option("--format", options.format, "table | json")
        ->check(CLI::IsMember(std::vector<std::string>{"table", "json"}));
    return cmd;
}

int cmd_compare(const CompareOptions& options) {
    const std::optional<Results> a = read_report_input(options.a);
    if (!a) return exit_bad_input;
    const std::optional<Results> b = read_report_input(options.b);
    if (!b) return exit_bad_input;
    const ResultsComparison c = compare_results(analyze(*a), analyze(*b));
    if (options.format == "json") {
        std::cout << compare_json(c, options.a, options.b)
                         .dump(1, ' ', false, nlohmann::json::error_handler_t::replace)
                  << "\n";
    } else {
        std::cout << compare_text(c, options.a, options.b);
    }
    return exit_ok;
}

}  // namespace xfer
