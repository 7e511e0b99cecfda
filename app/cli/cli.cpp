#include "cli/cli.hpp"

#include <CLI/CLI.hpp>
#include <iostream>

#include "cli/cmd_check.hpp"
#include "cli/cmd_compare.hpp"
#include "cli/cmd_completion.hpp"
#include "cli/cmd_devices.hpp"
#include "cli/cmd_help.hpp"
#include "cli/cmd_list.hpp"
#include "cli/cmd_plot.hpp"
#include "cli/cmd_report.hpp"
#include "cli/cmd_run.hpp"
#include "cli/cmd_threads.hpp"
#include "remote/worker_process.hpp"
#include "results/vocabulary.hpp"
#include "util/command_line.hpp"
#include "util/suggest.hpp"
#include "util/version.hpp"

namespace xfer {
namespace {

// CLI11 answers a missing or unknown command with "A subcommand is required": say which word
// it was, the closest command, and every command. Empty when the first word is a command or
// an option (--help, --version).
std::string command_problem(const CLI::App& app, int argc, char** argv) {
    if (argc > 1 && argv[1][0] == '-') return "";
    std::vector<std::string> names;
    bool known = false;
    for (const CLI::App* sub : app.get_subcommands({})) {
        known |= argc > 1 && sub->get_name() == argv[1];
        if (!sub->get_group().empty()) names.push_back(sub->get_name());  // not `worker`
    }
    if (known) return "";
    const std::string commands = join_names(names, ", ") + " (xferlab --help)";
    if (argc <= 1) return "a command is required: " + commands;
    return "unknown command '" + std::string(argv[1]) + "'" + did_you_mean(argv[1], names) +
           "; the commands are " + commands;
}

// Started by launcher "process" only: one worker process, talking over fds 3 and 4
// (remote/worker_process).
CLI::App* add_worker_command(CLI::App& app) {
    auto* cmd = app.add_subcommand("worker", "");
    cmd->group("");
    return cmd;
}

}  // namespace

int run_cli(int argc, char** argv) {
    record_command_line(argc, argv);
    CLI::App app{
        "xferlab: why does the same native copy behave differently from Python threads than "
        "from native threads? Runs one identical copy routine under several launchers and "
        "reports what differs.\n\nExit codes: 0 success, 1 a run failed, 2 bad input, "
        "130 interrupted."};
    app.require_subcommand(1);
    app.set_version_flag("--version", tool_version() + " (" + git_describe() + ")");

    // Every command registered the same way, in the order of the help.
    RunOptions run;
    auto* run_cmd = add_run_command(app, run);
    CheckOptions check;
    auto* check_cmd = add_check_command(app, check);
    CommonOptions list;
    auto* list_cmd = add_list_command(app, list);
    DevicesOptions devices;
    auto* devices_cmd = add_devices_command(app, devices);
    CommonOptions threads;
    auto* threads_cmd = add_threads_command(app, threads);
    ReportOptions report;
    auto* report_cmd = add_report_command(app, report);
    PlotOptions plot;
    auto* plot_cmd = add_plot_command(app, plot);
    CompareOptions compare;
    auto* compare_cmd = add_compare_command(app, compare);
    std::string shell;
    auto* completion_cmd = add_completion_command(app, shell);
    std::string help_topic;
    auto* help_cmd = add_help_command(app, help_topic);
    auto* worker_cmd = add_worker_command(app);

    if (const std::string problem = command_problem(app, argc, argv); !problem.empty()) {
        std::cerr << "xferlab: " << problem << "\n";
        return exit_bad_input;
    }
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        int code = app.exit(e);
        return code == 0 ? exit_ok : exit_bad_input;
    }
    const std::optional<std::string> no_folder =
        *run_cmd    ? empty_out(run.out, "run", "the default (output.dir in the config)")
        : *plot_cmd ? empty_out(plot.out, "plot", "the results file's folder")
                    : std::nullopt;
    if (no_folder) {
        std::cerr << *no_folder << "\n";
        return exit_bad_input;
    }
    if (*run_cmd) return cmd_run(run);
    if (*check_cmd) return cmd_check(check);
    if (*list_cmd) return cmd_list(list);
    if (*devices_cmd) return cmd_devices(devices);
    if (*threads_cmd) return cmd_threads(threads);
    if (*worker_cmd) return run_worker_process();
    if (*report_cmd) return cmd_report(report);
    if (*help_cmd) return cmd_help(app, help_topic);
    if (*completion_cmd) return cmd_completion(app, shell, argc > 0 ? argv[0] : "xferlab");
    if (*plot_cmd) return cmd_plot(plot);
    if (*compare_cmd) return cmd_compare(compare);
    return exit_bad_input;
}

}  // namespace xfer
