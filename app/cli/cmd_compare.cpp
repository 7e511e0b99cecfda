#include "cli/cmd_compare.hpp"

#include <CLI/CLI.hpp>
#include <iostream>

#include "cli/cli.hpp"
#include "report/explain/analyze.hpp"
#include "report/render/results_compare.hpp"
#include "results/results_reader.hpp"
#include "util/terminal_text.hpp"

namespace xfer {

CLI::App* add_compare_command(CLI::App& app, CompareOptions& options) {
    auto* cmd = app.add_subcommand(
        "compare",
        "Compare two results files run by run (paired by label): ratio, 95% CI and verdict "
        "across trials, B against A");
    cmd->add_option(
           "A", options.a,
           "results.json (or results.sqlite, journal.jsonl, or the results folder): the reference")
        ->required()
        ->type_name("A.json");
    cmd->add_option("B", options.b,
                    "results.json (or results.sqlite, journal.jsonl, or the results folder): "
                    "judged against A")
        ->required()
        ->type_name("B.json");
    cmd->add_option("--format", options.format, "table | json")
        ->check(CLI::IsMember(std::vector<std::string>{"table", "json"}));
    cmd->add_flag("--strict", options.strict,
                  "Refuse (exit 2) when the runs of a pair differ in any setting (size, backend, "
                  "host, threads, ...) instead of warning");
    return cmd;
}

int cmd_compare(const CompareOptions& options) {
    const std::optional<Results> a = read_results(options.a, std::cerr);
    if (!a) return exit_bad_input;
    const std::optional<Results> b = read_results(options.b, std::cerr);
    if (!b) return exit_bad_input;
    const ResultsComparison c = compare_results(*a, analyze(*a), *b, analyze(*b));
    const char* level = options.strict ? "error" : "warning";
    for (const ComparedPair& p : c.pairs)
        if (!p.differences.empty())
            std::cerr << "xferlab: " << level << ": pair '" << terminal_safe(p.label)
                      << "' differs in settings: " << terminal_safe(differences_text(p)) << "\n";
    if (options.strict && c.differing_pairs > 0) {
        std::cerr << "xferlab: compare --strict: " << c.differing_pairs << " of the "
                  << c.pairs.size()
                  << " pairs compare runs that differ in settings: nothing compared\n";
        return exit_bad_input;
    }
    const std::string a_name = results_file_in(options.a);
    const std::string b_name = results_file_in(options.b);
    if (options.format == "json") {
        std::cout << compare_json(c, a_name, b_name)
                         .dump(1, ' ', false, nlohmann::json::error_handler_t::replace)
                  << "\n";
    } else {
        std::cout << compare_text(c, a_name, b_name);
    }
    return exit_ok;
}

}  // namespace xfer
