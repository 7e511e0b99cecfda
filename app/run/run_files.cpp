#include "run/run_files.hpp"

#include <fmt/format.h>
#include <signal.h>

#include <iostream>
#include <map>
#include <memory>

#include "remote/mpi_job.hpp"
#include "report/explain/plan_analysis.hpp"
#include "report/render/reporter.hpp"
#include "results/runs_on_disk.hpp"
#include "run/exit_codes.hpp"
#include "run/output/output_dir.hpp"
#include "run/output/output_lock.hpp"
#include "run/output/results_output.hpp"
#include "run/plan/launchers.hpp"
#include "run/plan/plan_execution.hpp"
#include "run/plan/plan_runner.hpp"
#include "run/sizing/fit_plan.hpp"
#include "scenario/diagnostics.hpp"
#include "scenario/loader.hpp"
#include "settings/vocabulary.hpp"
#include "system/signal_names.hpp"
#include "system/stop_signal.hpp"
#include "util/terminal_text.hpp"

namespace xfer {
namespace fs = std::filesystem;
namespace {

std::atomic<bool>& g_stop = stop_requested();

// The report in `format` on the terminal (the files are always complete).
void print_report(const Results& results, const Analysis& analysis, const std::string& format,
                  ReportDetail detail, const Config& config) {
    make_reporter(format, detail, ReportLimits{config.trace_copies})
        ->write(results, analysis, std::cout);
}

// --fit: sizes the plan down when it does not fit. Returns the record for results.json, or
// nothing after saying why not even the smallest size fits.
std::optional<nlohmann::json> fit_or_refuse(const std::string& file,
                                            const ScenarioWithSets& with_sets,
                                            const std::vector<std::string>& sets,
                                            PlanRunner& runner, Scenario& scenario,
                                            std::vector<Run>& plan) {
    if (mpi_job().size > 1) {  // every rank would size to its own view of the memory
        std::cerr << file
                  << ": --fit is for one process, not an MPI job: choose the size with "
                     "--set transfer.bytes=...\n";
        return std::nullopt;
    }
    FitOutcome fit;
    try {
        fit = fit_plan(with_sets, sets, runner, scenario, plan);
    } catch (const ScenarioError& e) {
        print_diagnostics(e, std::cerr);
        std::cerr << fmt::format("{}: {} error(s)\n", file, e.diagnostics().size());
        return std::nullopt;
    }
    if (!fit.message.empty()) std::cerr << file << ": " << fit.message << "\n";
    if (!fit.fits) return std::nullopt;
    return std::move(fit.record);
}

// One scenario file ready to run: loaded, sized (--fit), preflighted, and on rank 0 its
// results folder taken (locked, checked for earlier output).
struct PreparedFile {
    std::string file;
    Scenario scenario;
    std::vector<Run> plan;
    nlohmann::json sizing;
    std::unique_ptr<LauncherRegistry> registry;
    std::unique_ptr<PlanRunner> runner;
    std::optional<OutputLock> folder;  // rank 0
    bool created_folder = false;       // by this command: removed again if nothing runs
};

// Loads, sizes and preflights `file`. Nothing, after printing why, when it cannot run here.
std::optional<PreparedFile> prepare_file(const std::string& file, const RunFilesOptions& options,
                                         const Config& config) {
    PreparedFile p;
    p.file = file;
    ScenarioWithSets with_sets;  // --fit's sizes, on the file as read here
    try {
        LoadedPlan loaded = load_plan(file, options.sets, payload_search_path(config));
        p.scenario = std::move(loaded.scenario);
        p.plan = std::move(loaded.plan);
        with_sets = std::move(loaded.with_overrides);
        for (const auto& note : p.scenario.notes)
            std::cerr << file << ": note: " << terminal_safe(note) << "\n";
    } catch (const ScenarioError& e) {
        print_diagnostics(e, std::cerr);
        std::cerr << fmt::format("{}: {} error(s)\n", file, e.diagnostics().size());
        return std::nullopt;
    }
    p.registry = std::make_unique<LauncherRegistry>(make_launcher_registry());
    p.runner = std::make_unique<PlanRunner>(*p.registry, plan_options(config), g_stop);
    if (options.fit) {
        auto fitted = fit_or_refuse(file, with_sets, options.sets, *p.runner, p.scenario, p.plan);
        if (!fitted) return std::nullopt;
        p.sizing = std::move(*fitted);
    }
    const auto problems = p.runner->preflight(p.plan);
    for (const auto& problem : problems)
        std::cerr << file << ": " << terminal_safe(problem) << "\n";
    if (!problems.empty()) return std::nullopt;
    // Once for the file, not once a run: each run's notes in the results repeat it.
    if (const auto fallback = p.runner->fallback_summary(p.plan); !fallback.empty())
        std::cerr << file << ": note: " << terminal_safe(fallback) << "\n";
    return p;
}

// `dir` locked for this run when no other run holds it and it holds no earlier run's output
// (or --force deleted that). Nothing, after saying why, when it cannot be used; with
// `quiet_busy` a folder in use or holding output is passed over silently (default names).
std::optional<OutputLock> take_folder(const fs::path& dir, const RunFilesOptions& options,
                                      bool quiet_busy, bool& created) {
    auto lock = create_and_lock(dir, quiet_busy, created);
    if (!lock) return std::nullopt;
    if (const auto earlier = earlier_output(dir); !earlier.empty()) {
        if (quiet_busy) return std::nullopt;
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
    return lock;
}

// Where one scenario's results go (rank 0), locked and proven writable. Runs are never mixed
// in one folder: a folder the user named (--out, or an output.dir without {timestamp}) that
// another run holds or that holds an earlier run's files is refused (unless --force, which
// deletes those files); a folder named from {timestamp} moves on to -2, -3, ... until one is
// free. `used` maps the folders this command already took to their scenario files.
std::optional<OutputLock> output_folder(const std::string& file, const RunFilesOptions& options,
                                        const Config& config, const std::string& scenario,
                                        std::map<fs::path, std::string>& used, bool& created) {
    try {
        fs::path dir;
        const bool from_timestamp =
            !options.out && config.output_dir.find("{timestamp}") != std::string::npos;
        if (!options.out) {
            dir = expand_output_dir(config.output_dir, scenario);
        } else {
            dir = options.files.size() > 1 ? fs::path(*options.out) / folder_safe_name(scenario)
                                           : fs::path(*options.out);
        }
        dir = absolute_folder(dir);  // before any payload can change the working folder
        std::error_code ec;
        const fs::path key = fs::weakly_canonical(dir, ec);
        if (auto it = used.find(key); it != used.end()) {
            std::cerr << fmt::format(
                "{}: its output folder {} is also the one of {} (both scenarios are named "
                "\"{}\"): scenarios run by one command need different names\n",
                file, dir.string(), it->second, scenario);
            return std::nullopt;
        }
        std::optional<OutputLock> lock = take_folder(dir, options, from_timestamp, created);
        for (int n = 2; !lock && from_timestamp; ++n) {
            dir = absolute_folder(fs::path(expand_output_dir(config.output_dir, scenario).string() +
                                           "-" + std::to_string(n)));
            lock = take_folder(dir, options, true, created);
        }
        if (lock) used.emplace(fs::weakly_canonical(lock->dir(), ec), file);
        return lock;
    } catch (const std::exception& e) {
        std::cerr << "xferlab: " << e.what() << "\n";
        return std::nullopt;
    }
}

// The line that says the plan was stopped, and by what.
std::string interruption(const PlanExecution& execution, size_t ran, size_t planned) {
    if (!execution.reader_gone.empty())
        return fmt::format(
            "xferlab: {}'s reader has gone (a closed pipe): stopped after {} of {} runs, as on "
            "SIGINT; writing a partial report\n",
            execution.reader_gone, ran, planned);
    const int cause = stop_cause();
    return fmt::format(
        "xferlab: interrupted after {} of {} runs{}; writing a partial report\n", ran, planned,
        cause == SIGINT || cause == 0 ? std::string() : fmt::format(" ({})", signal_name(cause)));
}

// How the plan ended, for the message after a failed write: "completed" when every planned run
// ran (a failure in the last run's writes stopped nothing), else "stopped there".
std::string plan_end(const Results& results, const std::vector<Run>& plan,
                     const PlanExecution& execution) {
    if (execution.write_failure.empty() || results.runs.size() == plan.size()) return "completed";
    return results.interrupted ? "was interrupted" : "stopped there";
}

// The plan of `p` into its folder (rank 0), the reports after it. Returns the exit code.
int run_prepared(PreparedFile& p, const RunFilesOptions& options, const Config& config,
                 const AfterReports& after) {
    const fs::path dir = p.folder->dir();
    OutputLock& folder = *p.folder;
    PlanAnalysis analysis;
    const auto files =
        results_folder_writer(dir, config, analysis, [&folder] { return folder.check(); });
    PlanExecution execution =
        execute_plan(*p.runner, p.scenario, p.plan, *files, analysis, std::move(p.sizing),
                     !options.quiet, g_stop, exit_run_failed);
    const Results& results = execution.results;
    if (results.interrupted) {
        std::cerr << interruption(execution, results.runs.size(), p.plan.size());
        stop_report_started();  // from here a separate, later signal may end the process
    }
    // The folder is checked once more first: the last payload ran after the last write.
    const FolderFinished finished = files->finish(results);
    print_report(results, analysis.of(results), options.format, options.detail, config);
    if (!finished.folder_lost.empty()) {
        // Its files are wherever the folder went; what the path names now is not read.
        std::cerr << fmt::format(
            "xferlab: the results could not be written ({}); {} run(s) of {} planned ran, and "
            "the plan {}. What was written before is in that folder, wherever it is now\n",
            execution.write_failure.empty() ? finished.folder_lost : execution.write_failure,
            results.runs.size(), p.plan.size(), plan_end(results, p.plan, execution));
        return exit_write_failed;
    }
    if (!options.quiet) say_results_written(dir, finished, "", std::cerr);
    const auto& failures = finished.failures;
    if (!execution.write_failure.empty() || !failures.empty()) {
        // What is where, so that nothing completed is taken for lost (nor a file for whole).
        // Read back from the files after the final write: what a reader of the folder finds.
        std::cerr << fmt::format(
            "xferlab: the results could not be written ({}); {} run(s) of {} planned ran, and "
            "the plan {}. On disk: {}{}\n",
            execution.write_failure.empty() ? failures.front() : execution.write_failure,
            results.runs.size(), p.plan.size(), plan_end(results, p.plan, execution),
            runs_on_disk(dir, results.runs.size()),
            failures.empty() ? "; the final report files were written"
                             : "; the final write failed too (" + join_names(failures, "; ") + ")");
        return exit_write_failed;
    }
    // Last, after every other output: drawing can only add files, never lose a result.
    if (after && !results.interrupted) after(results, dir);
    if (!execution.reader_gone.empty()) return exit_stream_closed;
    if (results.interrupted) return exit_interrupted;
    return execution.failed ? exit_run_failed : exit_ok;
}

// Every file prepared and (rank 0) its folder taken before the first run starts, so that an
// error in the last file is not found after the first has run for an hour.
std::optional<std::vector<PreparedFile>> prepare_all(const RunFilesOptions& options,
                                                     const Config& config) {
    std::vector<PreparedFile> files;
    size_t refused = 0;
    for (const auto& file : options.files) {
        if (auto p = prepare_file(file, options, config))
            files.push_back(std::move(*p));
        else
            ++refused;
    }
    std::map<fs::path, std::string> used;  // each scenario file's own results folder
    if (refused == 0 && mpi_job().rank == 0) {
        for (auto& p : files) {
            p.folder =
                output_folder(p.file, options, config, p.scenario.name, used, p.created_folder);
            if (!p.folder) ++refused;
        }
    }
    // Every MPI rank must agree before anything runs.
    if (!mpi_job_all(refused == 0)) {
        for (auto& p : files) {  // the folders taken for nothing: free and, if new, gone
            if (!p.folder) continue;
            const fs::path dir = p.folder->dir();
            p.folder.reset();
            std::error_code ec;
            if (p.created_folder) fs::remove(dir, ec);  // only when still empty
        }
        if (options.files.size() > 1)
            std::cerr << fmt::format(
                "xferlab: nothing was run: every scenario file is checked before the first "
                "runs, and {} of {} cannot run\n",
                std::max<size_t>(refused, 1), options.files.size());
        else
            std::cerr << options.files.front() << ": nothing was run\n";
        return std::nullopt;
    }
    return files;
}

}  // namespace

int run_files(const RunFilesOptions& options, const Config& config, const AfterReports& after) {
    try {
        mpi_job_begin();
    } catch (const std::exception& e) {
        std::cerr << "xferlab: joining the MPI job failed: " << e.what() << "\n";
        return exit_run_failed;
    }
    int code = exit_ok;
    if (auto files = prepare_all(options, config)) {
        for (auto& p : *files) {
            const int rc = mpi_job().rank == 0 ? run_prepared(p, options, config, after)
                                               : (follow_plan_as_rank(*p.runner, p.plan), exit_ok);
            p.folder.reset();  // the folder is free again
            code = std::max(code, rc);
            if (rc == exit_interrupted || rc == exit_stream_closed || rc == exit_write_failed)
                break;
        }
    } else {
        code = exit_bad_input;
    }
    mpi_job_end();
    return code;
}

}  // namespace xfer
