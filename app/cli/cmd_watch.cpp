#include "cli/cmd_watch.hpp"

#include <csignal>
#include <iostream>

#include "cli/config_loading.hpp"
#include "report/render/formats.hpp"
#include "run/exit_codes.hpp"
#include "run/fatal_signals.hpp"
#include "run/watch/watch_command.hpp"
#include "settings/vocabulary.hpp"
#include "util/units.hpp"

namespace xfer {

CLI::App* add_watch_command(CLI::App& app, WatchCommandOptions& options) {
    auto* cmd = app.add_subcommand(
        "watch", "Run a program as it is and report its CUDA copies: xferlab watch -- CMD ARGS");
    cmd->add_option("command", options.command,
                    "The program and its arguments, after -- (each process it starts is "
                    "watched too)")
        ->required()
        ->type_name("CMD ARGS...");
    cmd->add_option("--out", options.out, "Output folder (default from config: results/...)")
        ->type_name("DIR");
    cmd->add_option("--min-bytes", options.min_bytes,
                    "Record copies of at least this size (\"1MiB\"); smaller ones are counted")
        ->type_name("SIZE");
    cmd->add_option("--format", options.format,
                    "Terminal output: " + join_names(terminal_format_names(), " | "))
        ->check(CLI::IsMember(terminal_format_names()));
    cmd->add_flag("--quiet,-q", options.quiet, "No list of the files written");
    cmd->add_flag("--force", options.force,
                  "Write into an output folder that holds an earlier run's output: delete "
                  "that run's files first (only files xferlab writes; others are kept)");
    cmd->add_flag("--no-reference", options.no_reference,
                  "Time no page-locked reference copy after the program ends");
    cmd->add_flag("--calibrate", options.calibrate,
                  "Also time xferlab.copy (the staging engine) at the program's copy size on "
                  "each device it used, after it ends");
    cmd->add_flag("--no-thread-names", options.no_thread_names,
                  "Leave Python threads' OS names alone (by default a sitecustomize on "
                  "PYTHONPATH gives each threading.Thread's OS thread its name, as Python 3.14 "
                  "does itself)");
    add_detail_flags(cmd, options.detail);
    add_common_options(cmd, options.common);
    return cmd;
}

int cmd_watch(const WatchCommandOptions& options) {
    auto loaded = load_config_or_report(options.common);
    if (!loaded) return exit_bad_input;
    const Config& config = *loaded;
    WatchOptions o;
    o.command = options.command;
    o.out = options.out;
    o.force = options.force;
    o.quiet = options.quiet;
    o.reference = !options.no_reference;
    o.calibrate = options.calibrate;
    o.thread_names = !options.no_thread_names;
    o.format = options.format.value_or(config.format);
    std::string why;
    const std::optional<uint64_t> min_bytes = parse_size(options.min_bytes, &why);
    if (!min_bytes) {
        std::cerr << "xferlab watch: --min-bytes " << options.min_bytes << ": " << why << "\n";
        return exit_bad_input;
    }
    o.min_bytes = *min_bytes;
    const std::optional<ReportDetail> detail = report_detail(options.detail, o.format, why);
    if (!detail) {
        std::cerr << why << "\n";
        return exit_bad_input;
    }
    o.detail = *detail;
    if (o.out && o.out->empty()) {
        std::cerr << "xferlab watch: --out is empty: give a folder, or leave --out out for the "
                     "default (output.dir in the config)\n";
        return exit_bad_input;
    }
    install_fatal_signal_handlers();
    std::signal(SIGXFSZ, SIG_IGN);  // the program gets its default back (run/watch/watched_process)
    return watch_command(o, config);
}

}  // namespace xfer
