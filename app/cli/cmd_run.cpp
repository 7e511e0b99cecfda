#include "cli/cmd_run.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <csignal>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>

#include "cli/cli.hpp"
#include "cli/cmd_plot.hpp"
#include "cli/config_loading.hpp"
#include "python/python.hpp"
#include "remote/mpi_job.hpp"
#include "report/report_outputs.hpp"
#include "results/record_store.hpp"
#include "results/vocabulary.hpp"
#include "run/config.hpp"
#include "run/fatal_signals.hpp"
#include "run/file_reporters.hpp"
#include "run/fit_plan.hpp"
#include "run/launchers.hpp"
#include "run/output_dir.hpp"
#include "run/plan_execution.hpp"
#include "run/plan_recorder.hpp"
#include "run/plan_runner.hpp"
#include "scenario/diagnostics.hpp"
#include "scenario/loader.hpp"
#include "system/stop_signal.hpp"

namespace xfer {
namespace fs = std::filesystem;
namespace {

std::atomic<bool>& g_stop = stop_requested();

// Writes every reporter's file and the terminal output. Returns false when a file failed.
bool write_reports(const Results& results, const Config& config, const fs::path& dir,
                   const std::string& format, bool announce, ReportDetail detail) {
    const Analysis analysis = analyze(results);
    const ReportsWritten written =
        write_reports(results, analysis, file_reporters(results, config, dir), dir, format,
                      std::cout, detail, ReportLimits{config.trace_copies});
    store_analysis(results, analysis, dir);
    for (const auto& f : written.failures) std::cerr << "xferlab: writing " << f << " failed\n";
    if (announce) {
        std::cerr << "results: " << dir.string() << "/ (";
        for (size_t i = 0; i < written.files.size(); ++i)
            std::cerr << (i ? ", " : "") << written.files[i].filename().string();
        // The record store is written run by run, not by a reporter: named when it is there.
        if (fs::exists(dir / kRecordStoreFile)) std::cerr << ", " << kRecordStoreFile;
        std::cerr << ")\n";
        if (const auto note = copies_csv_note(results, config, dir); !note.empty())
            std::cerr << "note: " << note << "\n";
    }
    return written.failures.empty();
}

// --fit: sizes the plan down when it does not fit. Returns the record for results.json, or
// nothing after saying why not even the smallest size fits.
std::optional<nlohmann::json> fit_or_refuse(const std::string& file,
                                            const std::vector<std::string>& sets,
                                            PlanRunner& runner, Scenario& scenario,
                                            std::vector<Run>& plan) {
    if (mpi_job().size > 1) {  // every rank would size to its own view of the memory
        std::cerr << file
                  << ": --fit is for one process, not an MPI job: choose the size with "
                     "--set transfer.bytes=...; nothing was run\n";
        return std::nullopt;
    }
    FitOutcome fit;
    try {
        fit = fit_plan(file, sets, runner, scenario, plan);
    } catch (const ScenarioError& e) {
        print_diagnostics(e);
        std::cerr << fmt::format("{}: {} error(s); nothing was run\n", file,
                                 e.diagnostics().size());
        return std::nullopt;
    }
    if (!fit.message.empty()) std::cerr << file << ": " << fit.message << "\n";
    if (!fit.fits) {
        std::cerr << file << ": nothing was run\n";
        return std::nullopt;
    }
    return std::move(fit.record);
}

// Where one scenario's results go (rank 0), created and proven writable. Runs are never mixed
// in one folder: a folder the user named (--out, or an output.dir without {timestamp}) that
// holds an earlier run's files is refused unless --force, which deletes those files; a folder
// named from {timestamp} moves on to -2, -3, ... `used` maps the folders this command already
// wrote to their scenario files. Nothing, after saying why, when the folder cannot be used.
std::optional<fs::path> output_folder(const std::string& file, const RunOptions& options,
                                      const Config& config, const std::string& scenario,
                                      std::map<fs::path, std::string>& used) {
    fs::path dir;
    try {
        if (!options.out) {
            dir = expand_output_dir(config.output_dir, scenario);
            if (config.output_dir.find("{timestamp}") != std::string::npos)
                dir = unused_output_dir(dir);
        } else {
            dir = options.files.size() > 1 ? fs::path(*options.out) / folder_safe_name(scenario)
                                           : fs::path(*options.out);
        }
        std::error_code ec;
        const fs::path key = fs::weakly_canonical(fs::absolute(dir), ec);
        if (auto it = used.find(key); it != used.end()) {
            std::cerr << fmt::format(
                "{}: its output folder {} is also the one of {} (both scenarios are named "
                "\"{}\"): scenarios run by one command need different names\n",
                file, dir.string(), it->second, scenario);
            return std::nullopt;
        }
        if (const auto earlier = earlier_output(dir); !earlier.empty()) {
            if (!options.force) {
                std::cerr << fmt::format(
                    "xferlab: output folder {} already holds the output of an earlier run ({}): "
                    "this run's would be mixed with it. Choose another folder ({}), or add "
                    "--force to delete those files first (other files in the folder are kept)\n",
                    dir.string(), join_names(earlier), options.out ? "--out" : "output.dir");
                return std::nullopt;
            }
            std::cerr << fmt::format("xferlab: --force: deleted {} from {}\n",
                                     join_names(remove_earlier_output(dir)), dir.string());
        }
        prepare_output_dir(dir);
        used.emplace(key, file);
    } catch (const std::exception& e) {
        std::cerr << "xferlab: " << e.what() << "\n";
        return std::nullopt;
    }
    return dir;
}

int run_one_file(const std::string& file, const RunOptions& options, const Config& config,
                 std::map<fs::path, std::string>& used_folders) {
    Scenario scenario;
    std::vector<Run> plan;
    try {
        LoadedPlan loaded = load_plan(file, options.sets, payload_search_path(config));
        scenario = std::move(loaded.scenario);
        plan = std::move(loaded.plan);
    } catch (const ScenarioError& e) {
        print_diagnostics(e);
        std::cerr << fmt::format("{}: {} error(s); nothing was run\n", file,
                                 e.diagnostics().size());
        return exit_bad_input;
    }

    LauncherRegistry registry = make_launcher_registry();
    PlanRunner runner(registry, plan_options(config), g_stop);
    nlohmann::json sizing;
    if (options.fit) {
        auto fitted = fit_or_refuse(file, options.sets, runner, scenario, plan);
        if (!fitted) return exit_bad_input;
        sizing = std::move(*fitted);
    }
    auto problems = runner.preflight(plan);
    for (const auto& p : problems) std::cerr << file << ": " << p << "\n";
    std::optional<fs::path> dir;  // rank 0 writes the results
    if (problems.empty() && mpi_job().rank == 0)
        dir = output_folder(file, options, config, scenario.name, used_folders);
    // Every MPI rank must agree before anything runs.
    if (!mpi_job_all(problems.empty() && (mpi_job().rank != 0 || dir))) {
        std::cerr << file << ": nothing was run\n";
        return exit_bad_input;
    }
    if (mpi_job().rank != 0) {
        follow_plan_as_rank(runner, plan);
        return exit_ok;
    }

    PlanExecution execution = execute_plan(runner, scenario, plan, config, *dir, std::move(sizing),
                                           !options.quiet, g_stop, exit_run_failed);
    const Results& results = execution.results;
    bool failed = execution.failed;
    if (results.interrupted) {
        std::cerr << fmt::format(
            "xferlab: interrupted after {} of {} runs; writing a partial report\n",
            results.runs.size(), plan.size());
        stop_report_started();  // from here a separate, later signal may end the process
    }
    std::string format = options.format.value_or(config.format);
    const ReportDetail detail = options.brief ? ReportDetail::brief : ReportDetail::full;
    if (!write_reports(results, config, *dir, format, !options.quiet, detail)) failed = true;
    // Last, after every other output: drawing can only add files, never lose a result.
    if (config.plots && !results.interrupted) plot_after_run(results, *dir, !options.quiet);
    if (results.interrupted) return exit_interrupted;
    return failed ? exit_run_failed : exit_ok;
}

}  // namespace

int cmd_run(const RunOptions& options) {
    auto loaded = load_config_or_report(options.common);
    if (!loaded) return exit_bad_input;
    const Config& config = *loaded;
    if (options.brief && options.format.value_or(config.format) != "table") {
        std::cerr << brief_needs_table(options.format.value_or(config.format)) << "\n";
        return exit_bad_input;
    }
    install_stop_handlers();
    install_fatal_signal_handlers();
    // Past `ulimit -f` a write should fail with EFBIG and be reported, not kill the process.
    std::signal(SIGXFSZ, SIG_IGN);
    try {
        mpi_job_begin();
    } catch (const std::exception& e) {
        std::cerr << "xferlab: joining the MPI job failed: " << e.what() << "\n";
        return exit_run_failed;
    }

    int code = exit_ok;
    std::map<fs::path, std::string> used_folders;  // each scenario file's own results folder
    for (const auto& file : options.files) {
        int rc = run_one_file(file, options, config, used_folders);
        if (rc == exit_interrupted) {
            code = rc;
            break;
        }
        code = std::max(code, rc);
    }
    mpi_job_end();
    std::cout.flush();
    std::cerr.flush();
    // A payload that left a thread running cannot be finalized safely: end the process here.
    if (python_threads_leaked()) _exit(code);
    return code;
}

}  // namespace xfer
