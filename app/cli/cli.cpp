#include "cli/cli.hpp"

#include <CLI/CLI.hpp>
#include <iostream>

#include "cli/cmd_completion.hpp"
#include "cli/cmd_help.hpp"
#include "cli/cmd_list.hpp"
#include "cli/cmd_threads.hpp"
#include "cli/commands.hpp"
#include "cli/standard_streams.hpp"
#include "remote/worker_process.hpp"
#include "settings/vocabulary.hpp"
#include "util/command_line.hpp"
#include "util/suggest.hpp"

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

// Parses the command line and runs its command; returns the exit code.
int dispatch(int argc, char** argv) {
    Commands c;
    if (const std::string problem = command_problem(c.app, argc, argv); !problem.empty()) {
        std::cerr << "xferlab: " << problem << "\n";
        return exit_bad_input;
    }
    try {
        c.parse(std::vector<std::string>(argv, argv + argc));
    } catch (const CLI::ParseError& e) {
        int code = c.app.exit(e);
        return code == 0 ? exit_ok : exit_bad_input;
    }
    const std::optional<std::string> no_folder =
        *c.run_cmd    ? empty_out(c.run.out, "run", "the default (output.dir in the config)")
        : *c.plot_cmd ? empty_out(c.plot.out, "plot", "the results file's folder")
                      : std::nullopt;
    if (no_folder) {
        std::cerr << *no_folder << "\n";
        return exit_bad_input;
    }
    if (*c.run_cmd) return cmd_run(c.run);
    if (*c.check_cmd) return cmd_check(c.check);
    if (*c.list_cmd) return cmd_list(c.list);
    if (*c.devices_cmd) return cmd_devices(c.devices);
    if (*c.threads_cmd) return cmd_threads(c.threads);
    if (*c.worker_cmd) return run_worker_process();
    if (*c.report_cmd) return cmd_report(c.report);
    if (*c.help_cmd) return cmd_help(c.app, c.help_topic, c.help_form);
    if (*c.completion_cmd) return cmd_completion(c.app, c.shell, argc > 0 ? argv[0] : "xferlab");
    if (*c.plot_cmd) return cmd_plot(c.plot);
    if (*c.compare_cmd) return cmd_compare(c.compare);
    if (*c.watch_cmd) return cmd_watch(c.watch);
    return exit_bad_input;
}

}  // namespace

int run_cli(int argc, char** argv) {
    hold_closed_standard_fds();
    record_command_line(argc, argv);
    return exit_code_after_stdout(dispatch(argc, argv));
}

}  // namespace xfer
