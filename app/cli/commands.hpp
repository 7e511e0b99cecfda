#pragma once
// Every command registered on one CLI11 app, with the options each one fills. run_cli parses
// the process's arguments into it and dispatches; the parser tests parse argument orders into
// it and read the options back, without running anything.
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "cli/cmd_check.hpp"
#include "cli/cmd_compare.hpp"
#include "cli/cmd_devices.hpp"
#include "cli/cmd_help.hpp"
#include "cli/cmd_plot.hpp"
#include "cli/cmd_report.hpp"
#include "cli/cmd_run.hpp"
#include "cli/cmd_watch.hpp"

namespace xfer {

struct Commands {
    Commands();
    Commands(const Commands&) = delete;
    Commands& operator=(const Commands&) = delete;

    // Parses `args` (args[0] is the program) as CLI11 parses argc/argv, after
    // split_empty_values. Throws CLI::ParseError as CLI11 does.
    void parse(std::vector<std::string> args);

    // What each command's flags and arguments set (the options first: the app binds them).
    RunOptions run;
    CheckOptions check;
    CommonOptions list;
    DevicesOptions devices;
    CommonOptions threads;
    ReportOptions report;
    PlotOptions plot;
    CompareOptions compare;
    WatchCommandOptions watch;
    std::string shell;       // completion SHELL
    std::string help_topic;  // help TOPIC
    HelpForm help_form;      // help explanations --markdown, help record-fields --json

    CLI::App app;
    CLI::App* run_cmd;
    CLI::App* check_cmd;
    CLI::App* list_cmd;
    CLI::App* devices_cmd;
    CLI::App* threads_cmd;
    CLI::App* report_cmd;
    CLI::App* plot_cmd;
    CLI::App* compare_cmd;
    CLI::App* watch_cmd;
    CLI::App* completion_cmd;
    CLI::App* help_cmd;
    CLI::App* worker_cmd;  // started by launcher "process" only (remote/worker_process)
};

// `--out=` (an option that takes a value, given an empty one) as `--out ""`: CLI11 would take
// the next argument (a scenario file) as its value instead, and then miss the file. Flags,
// `--name=value` and everything after a bare `--` are left as they are.
std::vector<std::string> split_empty_values(const CLI::App& app, std::vector<std::string> args);

}  // namespace xfer
