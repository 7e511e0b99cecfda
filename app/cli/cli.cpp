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
    return "unknown command '" + std::string(argv[1]) + "'" +
           did_you_mean(argv[1], names) + "; the commands are " + commands;
}

}  // namespace

namespace {
constexpr const char* kBriefHelp =
    "Table: the runs, the bandwidth and the summary only (no per-run sections)";

void add_trials_option(CLI::App* sub, int& trials) {
    sub->add_option("--trials", trials,
                    "Run every run N times (scenario.trials): verdicts compare the trials")
        ->type_name("N")
        ->check(CLI::Range(1, 1000));
}
}  // namespace

int run_cli(int argc, char** argv) {
    CLI::App app{
        "xferlab: why does the same native copy behave differently from Python threads than "
        "from native threads? Runs one identical copy routine under several launchers and "
        "reports what differs.\n\nExit codes: 0 success, 1 a run failed, 2 bad input, "
        "130 interrupted."};
    app.require_subcommand(1);
    app.set_version_flag("--version", tool_version() + " (" + git_describe() + ")");

    CommonOptions common;
    auto add_common = [&](CLI::App* sub) {
        sub->add_option("--config", common.config, "Config file read after config/xferlab.toml")
            ->type_name("FILE.toml");
        // One folder per flag: a list would swallow the scenario files that follow it.
        sub->add_option("--payload-dir", common.payload_dirs,
                        "Payload folder searched before python_payloads/ (repeatable)")
            ->type_name("DIR")
            ->expected(1)
            ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
    };

    RunOptions run;
    auto* run_cmd = app.add_subcommand("run", "Run scenario files and report");
    run_cmd->add_option("files", run.files, "Scenario files (TOML)")
        ->required()
        ->type_name("FILE.toml");
    run_cmd->add_option("--set", run.sets, "Override a scenario key: --set threads.count=8")
        ->take_all()
        ->type_name("KEY=VALUE");
    run_cmd->add_option("--out", run.out, "Output folder (default from config: results/...)")
        ->type_name("DIR");
    run_cmd->add_option("--format", run.format,
                        "Terminal output: " + join_names(terminal_format_names(), " | "))
        ->check(CLI::IsMember(terminal_format_names()));
    run_cmd->add_flag("--quiet,-q", run.quiet, "No progress line");
    run_cmd->add_flag("--force", run.force,
                      "Write into an output folder that holds an earlier run's output: delete "
                      "that run's files first (only files xferlab writes; others are kept)");
    run_cmd->add_flag("--fit", run.fit,
                      "When the plan does not fit this machine's memory, run it with the largest "
                      "power-of-two transfer.bytes that does (at least 64 MiB)");
    run_cmd->add_flag("--brief", run.brief, kBriefHelp);
    int run_trials = 0;
    add_trials_option(run_cmd, run_trials);
    add_common(run_cmd);

    std::vector<std::string> check_files, check_sets;
    auto* check_cmd =
        app.add_subcommand("check", "Validate scenario files and print the expanded plan");
    check_cmd->add_option("files", check_files, "Scenario files (TOML)")
        ->required()
        ->type_name("FILE.toml");
    check_cmd->add_option("--set", check_sets, "Override a scenario key")
        ->take_all()
        ->type_name("KEY=VALUE");
    int check_trials = 0;
    add_trials_option(check_cmd, check_trials);
    add_common(check_cmd);

    auto* list_cmd = app.add_subcommand("list", "List scenarios with their descriptions");
    add_common(list_cmd);

    bool devices_json = false;
    auto* devices_cmd =
        app.add_subcommand("devices", "Backends, devices, topology, and why one is unavailable");
    devices_cmd->add_flag("--json", devices_json, "Print JSON");
    add_common(devices_cmd);

    auto* threads_cmd = app.add_subcommand(
        "threads", "ThreadInfo of the main, a host, an OpenMP and a Python thread side by side");
    add_common(threads_cmd);

    std::string report_file, report_format = "table";
    auto* report_cmd = app.add_subcommand(
        "report",
        "Re-render a results.json, results.sqlite or journal.jsonl with this build's statistics "
        "and explanations");
    report_cmd
        ->add_option("file", report_file,
                     "results.json (or results.sqlite, or journal.jsonl) written by `xferlab run`")
        ->required()
        ->type_name("FILE.json|jsonl|sqlite");
    report_cmd->add_option("--format", report_format, join_names(reporter_names(), " | "))
        ->check(CLI::IsMember(reporter_names()));
    bool report_brief = false;
    report_cmd->add_flag("--brief", report_brief, kBriefHelp);

    PlotOptions plot;
    auto* plot_cmd = add_plot_command(app, plot);
    CompareOptions compare;
    auto* compare_cmd = add_compare_command(app, compare);

    std::string shell;
    auto* completion_cmd = app.add_subcommand(
        "completion", "Print the shell completion script: source <(xferlab completion bash)");
    completion_cmd->add_option("shell", shell, "The shell")
        ->required()
        ->check(CLI::IsMember(std::vector<std::string>{"bash"}));

    std::string help_topic;
    auto* help_cmd = app.add_subcommand(
        "help", "Help on a command, or every scenario key: xferlab help scenario-keys");
    // Topics: the commands above (added before this line) and scenario-keys.
    help_cmd->add_option("topic", help_topic, "scenario-keys or a command")
        ->check(CLI::IsMember(help_topics(app)));

    // Started by launcher "process" only: one worker process, talking over fds 3 and 4.
    auto* worker_cmd = app.add_subcommand("worker", "");
    worker_cmd->group("");

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
    run.common = common;
    // --trials N is --set scenario.trials=N, written last so that it wins.
    if (run_trials > 0) run.sets.push_back("scenario.trials=" + std::to_string(run_trials));
    if (check_trials > 0) check_sets.push_back("scenario.trials=" + std::to_string(check_trials));
    if (*run_cmd) return cmd_run(run);
    if (*check_cmd) return cmd_check(common, check_files, check_sets);
    if (*list_cmd) return cmd_list(common);
    if (*devices_cmd) return cmd_devices(common, devices_json);
    if (*threads_cmd) return cmd_threads(common);
    if (*worker_cmd) return run_worker_process();
    if (*report_cmd) return cmd_report(report_file, report_format, report_brief);
    if (*help_cmd) return cmd_help(app, help_topic);
    if (*completion_cmd) return cmd_completion(app, shell, argc > 0 ? argv[0] : "xferlab");
    if (*plot_cmd) return cmd_plot(plot);
    if (*compare_cmd) return cmd_compare(compare);
    return exit_bad_input;
}

}  // namespace xfer
