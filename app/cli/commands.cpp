#include "cli/commands.hpp"

#include "cli/cmd_completion.hpp"
#include "cli/cmd_help.hpp"
#include "cli/cmd_list.hpp"
#include "cli/cmd_threads.hpp"
#include "util/version.hpp"

namespace xfer {
namespace {

constexpr const char* kDescription =
    "xferlab: why does the same native copy behave differently from Python threads than from "
    "native threads? Runs one identical copy routine under several launchers and reports what "
    "differs.\n\nExit codes: 0 success, 1 a run failed or stdout could not take the output (full "
    "or closed), 2 bad input (nothing was run), 3 the results could not be written (a full "
    "disk, a file size limit), 130 interrupted (SIGINT, SIGTERM, SIGHUP), 141 stdout or stderr "
    "lost its reader (a closed pipe; the files are written).";

CLI::App* add_worker_command(CLI::App& app) {
    auto* cmd = app.add_subcommand("worker", "");
    cmd->group("");
    return cmd;
}

// The command `args` names (its first argument), or nullptr.
const CLI::App* command_named(const CLI::App& app, const std::vector<std::string>& args) {
    if (args.size() < 2) return nullptr;
    for (const CLI::App* sub : app.get_subcommands({}))
        if (sub->get_name() == args[1]) return sub;
    return nullptr;
}

}  // namespace

Commands::Commands() : app(kDescription) {
    app.require_subcommand(1);
    app.set_version_flag("--version", tool_version() + " (" + git_describe() + ")");
    // In the order of the help.
    run_cmd = add_run_command(app, run);
    check_cmd = add_check_command(app, check);
    list_cmd = add_list_command(app, list);
    devices_cmd = add_devices_command(app, devices);
    threads_cmd = add_threads_command(app, threads);
    report_cmd = add_report_command(app, report);
    plot_cmd = add_plot_command(app, plot);
    compare_cmd = add_compare_command(app, compare);
    watch_cmd = add_watch_command(app, watch);
    completion_cmd = add_completion_command(app, shell);
    help_cmd = add_help_command(app, help_topic, help_form);
    worker_cmd = add_worker_command(app);
}

void Commands::parse(std::vector<std::string> args) {
    args = split_empty_values(app, std::move(args));
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    app.parse(int(argv.size()), argv.data());
}

std::vector<std::string> split_empty_values(const CLI::App& app, std::vector<std::string> args) {
    const CLI::App* command = command_named(app, args);
    if (!command) return args;
    std::vector<std::string> out(args.begin(), args.begin() + 2);
    bool options_end = false;
    for (size_t i = 2; i < args.size(); ++i) {
        const std::string& a = args[i];
        options_end |= a == "--";
        const bool empty_value =
            !options_end && a.size() > 3 && a.rfind("--", 0) == 0 && a.find('=') == a.size() - 1;
        const CLI::Option* option =
            empty_value ? command->get_option_no_throw(a.substr(0, a.size() - 1)) : nullptr;
        if (option && option->get_expected_max() > 0) {
            out.push_back(a.substr(0, a.size() - 1));
            out.emplace_back();
        } else {
            out.push_back(a);
        }
    }
    return out;
}

}  // namespace xfer
