#include "cli/cmd_run.hpp"

#include <unistd.h>

#include <csignal>
#include <iostream>

#include "cli/cli.hpp"
#include "cli/cmd_plot.hpp"
#include "cli/config_loading.hpp"
#include "python/python.hpp"
#include "run/fatal_signals.hpp"
#include "run/run_files.hpp"
#include "system/stop_signal.hpp"

namespace xfer {

int cmd_run(const RunOptions& options) {
    auto loaded = load_config_or_report(options.common);
    if (!loaded) return exit_bad_input;
    const Config& config = *loaded;
    const std::string format = options.format.value_or(config.format);
    if (options.brief && format != "table") {
        std::cerr << brief_needs_table(format) << "\n";
        return exit_bad_input;
    }
    install_stop_handlers();
    install_fatal_signal_handlers();
    // Past `ulimit -f` a write should fail with EFBIG and be reported, not kill the process.
    std::signal(SIGXFSZ, SIG_IGN);
    const RunFilesOptions run{.files = options.files,
                              .sets = options.sets,
                              .out = options.out,
                              .format = format,
                              .quiet = options.quiet,
                              .fit = options.fit,
                              .force = options.force,
                              .brief = options.brief};
    AfterReports figures;  // last, after every other output: drawing can only add files
    if (config.plots)
        figures = [&](const Results& results, const std::filesystem::path& dir) {
            plot_after_run(results, dir, !options.quiet);
        };
    const int code = run_files(run, config, figures);
    std::cout.flush();
    std::cerr.flush();
    // A payload that left a thread running cannot be finalized safely: end the process here.
    if (python_threads_leaked()) _exit(code);
    return code;
}

}  // namespace xfer
