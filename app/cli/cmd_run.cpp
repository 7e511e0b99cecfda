#include "cli/cmd_run.hpp"

#include <unistd.h>

#include <csignal>
#include <iostream>

#include "cli/cli.hpp"
#include "cli/cmd_plot.hpp"
#include "cli/config_loading.hpp"
#include "cli/standard_streams.hpp"
#include "embed/python.hpp"
#include "report/render/formats.hpp"
#include "run/fatal_signals.hpp"
#include "run/run_files.hpp"
#include "settings/vocabulary.hpp"
#include "system/stop_signal.hpp"
#include "system/stream_readers.hpp"

namespace xfer {

CLI::App* add_run_command(CLI::App& app, RunOptions& options) {
    auto* cmd = app.add_subcommand("run", "Run scenario files and report");
    cmd->add_option("files", options.files, "Scenario files (TOML)")
        ->required()
        ->type_name("FILE.toml");
    add_set_option(cmd, options.sets, "Override a scenario key: --set threads.count=8");
    cmd->add_option("--out", options.out, "Output folder (default from config: results/...)")
        ->type_name("DIR");
    cmd->add_option("--format", options.format,
                    "Terminal output: " + join_names(terminal_format_names(), " | "))
        ->check(CLI::IsMember(terminal_format_names()));
    cmd->add_flag("--quiet,-q", options.quiet, "No progress line");
    cmd->add_flag("--force", options.force,
                  "Write into an output folder that holds an earlier run's output: delete "
                  "that run's files first (only files xferlab writes; others are kept)");
    cmd->add_flag("--fit", options.fit,
                  "When the plan does not fit this machine's memory, run it with the largest "
                  "power-of-two transfer.bytes that does (at least 64 MiB)");
    add_detail_flags(cmd, options.detail);
    add_trials_option(cmd, options.trials);
    add_common_options(cmd, options.common);
    return cmd;
}

int cmd_run(const RunOptions& options) {
    auto loaded = load_config_or_report(options.common);
    if (!loaded) return exit_bad_input;
    const Config& config = *loaded;
    const std::string format = options.format.value_or(config.format);
    std::string why;
    const std::optional<ReportDetail> detail = report_detail(options.detail, format, why);
    if (!detail) {
        std::cerr << why << "\n";
        return exit_bad_input;
    }
    install_stop_handlers();
    install_fatal_signal_handlers();
    // Past `ulimit -f` a write should fail with EFBIG and be reported, not kill the process.
    std::signal(SIGXFSZ, SIG_IGN);
    // A closed pipe on stdout or stderr must not end the plan unrecorded: the plan looks for a
    // reader that has gone between runs and stops as on SIGINT (run/plan/plan_execution.cpp).
    std::signal(SIGPIPE, SIG_IGN);
    std::vector<std::string> sets = options.sets;
    if (options.trials > 0) sets.push_back("scenario.trials=" + std::to_string(options.trials));
    const RunFilesOptions run{.files = options.files,
                              .sets = sets,
                              .out = options.out,
                              .format = format,
                              .quiet = options.quiet,
                              .fit = options.fit,
                              .force = options.force,
                              .detail = *detail};
    AfterReports figures;  // last, after every other output: drawing can only add files
    if (config.plots)
        figures = [&](const Results& results, const std::filesystem::path& dir) {
            plot_after_run(results, dir, !options.quiet);
        };
    int code = run_files(run, config, figures);
    std::cout.flush();
    std::cerr.flush();
    // The reader went away during the last run or the report: said by the code, as SIGPIPE would
    // have (but after every file was written). Bad input and failed writes keep their own.
    if (code != exit_bad_input && code != exit_write_failed &&
        !standard_stream_without_reader().empty())
        code = exit_stream_closed;
    // A payload that left a thread running cannot be finalized safely: end the process here,
    // after the check run_cli makes on the way out.
    if (python_threads_leaked()) _exit(exit_code_after_stdout(code));
    return code;
}

}  // namespace xfer
