#include "run/watch/watch_command.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <iostream>

#include "embed/python.hpp"
#include "report/analysis/run_stats.hpp"
#include "report/explain/plan_analysis.hpp"
#include "report/render/reporter.hpp"
#include "results/machine_facts.hpp"
#include "results/runs_on_disk.hpp"
#include "run/exit_codes.hpp"
#include "run/plan/launchers.hpp"
#include "run/output/output_dir.hpp"
#include "run/plan/plan_recorder.hpp"
#include "run/plan/plan_runner.hpp"
#include "run/output/results_output.hpp"
#include "run/watch/watch_folder.hpp"
#include "run/watch/watch_reference.hpp"
#include "run/watch/watched_process.hpp"
#include "system/host_description.hpp"
#include "system/stop_signal.hpp"
#include "util/clock.hpp"
#include "util/command_line.hpp"
#include "util/terminal_text.hpp"
#include "util/version.hpp"
#include "watch/record_reader.hpp"
#include "watch/watch_records.h"

namespace xfer {
namespace fs = std::filesystem;
namespace {

constexpr int kCannotStart = 127;  // as a shell says of a command it cannot run

// The folder for this command's results: --out, else output.dir with {scenario} =
// "watch-<program>", moving on to -2, -3 where {timestamp} repeats.
std::optional<OutputLock> results_folder(const WatchOptions& o, const Config& config,
                                         bool& created) {
    try {
        if (o.out) return take_watch_folder(*o.out, o.force, false, created);
        const std::string name = "watch-" + fs::path(o.command.front()).filename().string();
        const bool from_timestamp = config.output_dir.find("{timestamp}") != std::string::npos;
        fs::path dir = expand_output_dir(config.output_dir, name);
        auto lock = take_watch_folder(dir, o.force, from_timestamp, created);
        for (int n = 2; !lock && from_timestamp; ++n)
            lock =
                take_watch_folder(dir.string() + "-" + std::to_string(n), o.force, true, created);
        return lock;
    } catch (const std::exception& e) {
        std::cerr << "xferlab: " << e.what() << "\n";
        return std::nullopt;
    }
}

// The folder of the sitecustomize that names Python threads' OS threads (python/xferlab_watch).
std::string thread_name_shim() {
    const fs::path dir = python_lib_dir() / "xferlab_watch";
    std::error_code ec;
    return fs::is_regular_file(dir / "sitecustomize.py", ec) ? dir.string() : "";
}

std::vector<std::string> program_environment(const WatchOptions& o, const std::string& library,
                                             const fs::path& records) {
    std::vector<std::string> set = {"CUDA_INJECTION64_PATH=" + library,
                                    std::string(XW_ENV_DIR) + "=" + records.string()};
    if (o.thread_names) {
        if (const std::string shim = thread_name_shim(); !shim.empty()) {
            const char* path = std::getenv("PYTHONPATH");
            set.push_back("PYTHONPATH=" + shim + (path && *path ? ":" + std::string(path) : ""));
        }
    }
    return environment_with(current_environment(), set);
}

Results results_header(const WatchOptions& o, int planned) {
    Results results;
    results.tool_version = tool_version();
    results.git_describe = git_describe();
    results.host = host_from_json(describe_host());
    results.command = command_line();
    results.started_wall_ns = wall_ns();
    results.planned_runs = planned;
    std::string program;
    for (const auto& a : o.command) program += (program.empty() ? "" : " ") + a;
    results.scenario = {
        {"scenario",
         {{"name", "watch " + fs::path(o.command.front()).filename().string()},
          {"description", "the copies of `" + program + "`, as xferlab watch recorded them"},
          {"baseline", watch::kWatchedLabel}}},
        {"watched", {{"command", o.command}, {"min_bytes", o.min_bytes}}}};
    return results;
}

// Reads every process's records, saying on stderr (and in the run's notes) which could not be.
std::vector<watch::ProcessTrace> read_records(const fs::path& dir,
                                              std::vector<std::string>& notes) {
    std::vector<watch::ProcessTrace> traces;
    std::error_code ec;
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(dir, ec))
        if (e.path().extension() == XW_FILE_SUFFIX) files.push_back(e.path());
    std::sort(files.begin(), files.end());
    for (const auto& f : files) {
        try {
            traces.push_back(watch::read_process_trace(f));
        } catch (const std::exception& e) {
            std::cerr << "xferlab: " << e.what() << "\n";
            notes.push_back(std::string(e.what()) + ": its records are left out");
        }
    }
    std::stable_sort(traces.begin(), traces.end(),
                     [](const auto& a, const auto& b) { return a.start_ns < b.start_ns; });
    return traces;
}

}  // namespace

std::string watch_library() {
    if (const char* lib = std::getenv("XFERLAB_WATCH_LIBRARY"); lib && *lib) return lib;
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (ec) return "";
    const fs::path lib = exe.parent_path() / "libxferlab_watch.so";
    return fs::is_regular_file(lib, ec) ? lib.string() : "";
}

int watch_command(const WatchOptions& o, const Config& config) {
    if (o.command.empty()) {
        std::cerr << "xferlab watch: no command: xferlab watch [OPTIONS] -- CMD ARGS...\n";
        return exit_bad_input;
    }
    if (const char* named = std::getenv("XFERLAB_WATCH_LIBRARY"); named && *named) {
        std::error_code ec;
        if (!fs::is_regular_file(named, ec)) {
            std::cerr << "xferlab watch: XFERLAB_WATCH_LIBRARY names " << terminal_safe(named)
                      << ", which is not a file\n";
            return exit_bad_input;
        }
    }
    const std::string library = watch_library();
    if (library.empty()) {
        std::cerr << "xferlab watch: this xferlab was built without CUDA and CUPTI: it has no "
                     "injection library (libxferlab_watch.so beside the executable) to put into "
                     "a CUDA program\n";
        return exit_bad_input;
    }
    if (const char* other = std::getenv("CUDA_INJECTION64_PATH");
        other && *other && library != other) {
        std::cerr << fmt::format(
            "xferlab watch: CUDA_INJECTION64_PATH is set already ({}): another tool injects "
            "into CUDA programs, and the driver loads one library only. Unset it to watch\n",
            terminal_safe(other));
        return exit_bad_input;
    }
    bool created = false;
    std::optional<OutputLock> folder = results_folder(o, config, created);
    if (!folder) return exit_bad_input;
    const fs::path dir = folder->dir();
    const fs::path records = fs::absolute(dir / kWatchRecordsFolder);

    if (!o.quiet)
        std::cerr << fmt::format("xferlab watch: running {} (records in {}/)\n",
                                 terminal_safe(o.command.front()), records.string());
    WatchedExit exit;
    try {
        exit = run_watched_process(o.command, program_environment(o, library, records));
    } catch (const std::exception& e) {
        std::cerr << "xferlab watch: cannot run " << terminal_safe(e.what()) << "\n";
        folder.reset();
        std::error_code ec;
        fs::remove(records, ec);
        if (created) fs::remove(dir, ec);  // only when empty
        return kCannotStart;
    }
    // From here a SIGINT or SIGTERM stops the reference copies, as it stops a plan.
    install_stop_handlers();
    std::vector<std::string> read_notes;
    const std::vector<watch::ProcessTrace> traces = read_records(records, read_notes);
    watch::WatchedRun watched = watch::watched_run(traces, {.argv = o.command,
                                                            .start_ns = exit.start_ns,
                                                            .end_ns = exit.end_ns,
                                                            .ended = exit.ended,
                                                            .interrupted = exit.stopped,
                                                            .min_bytes = o.min_bytes});
    watched.run.notes.insert(watched.run.notes.end(), read_notes.begin(), read_notes.end());

    const LauncherRegistry registry = make_launcher_registry();
    PlanRunner runner(registry, plan_options(config), stop_requested());
    ReferencePlan reference;
    if (o.reference && !exit.stopped)
        reference = plan_references(watched.uses, o.calibrate, records, config, runner, 1);
    if (!reference.skipped.empty())
        watched.run.notes.push_back("no page-locked reference copy was timed: " +
                                    terminal_safe(reference.skipped));

    Results results = results_header(o, 1 + int(reference.runs.size()));
    if (!reference.resolved.is_null()) results.scenario["reference"] = reference.resolved;
    PlanAnalysis analysis;
    const auto files = results_folder_writer(dir, config, analysis);
    std::string write_failure;
    {
        PlanRecorder recorder(results, analysis, *files);
        RunAnalysis s = analyze_run(watched.run);
        recorder.add(std::move(watched.run), std::move(s));
        for (const Run& run : reference.runs) {
            if (stop_requested().load() || !recorder.write_failure().empty()) break;
            recorder.begin(run);
            RunResult result = runner.run(run);
            RunAnalysis rs = analyze_run(result);
            recorder.add(std::move(result), std::move(rs));
        }
        results.interrupted = exit.stopped || stop_requested().load();
        results.complete = recorder.write_failure().empty();
        std::vector<BackendDevices> devices;
        if (auto from_runner = devices_from_json(runner.devices())) devices = *from_runner;
        BackendDevices program_devices;
        program_devices.backend = "watched";
        program_devices.description = watched.devices;
        devices.push_back(std::move(program_devices));
        results.devices = devices;
        recorder.finish();
        write_failure = recorder.write_failure();
    }
    if (results.interrupted) stop_report_started();
    const FolderFinished finished = files->finish(results);
    make_reporter(o.format, o.detail, ReportLimits{config.trace_copies})
        ->write(results, analysis.of(results), std::cout);
    if (!o.quiet)
        say_results_written(dir, finished, std::string(", ") + kWatchRecordsFolder + "/",
                            std::cerr);
    const std::string final_failure = finished.failures.empty() ? "" : finished.failures.front();
    if (!write_failure.empty() || !final_failure.empty()) {
        std::cerr << fmt::format(
            "xferlab watch: the results could not be written ({}). On disk: "
            "{}; the program's records are in {}/\n",
            write_failure.empty() ? final_failure : write_failure,
            runs_on_disk(dir, results.runs.size()), records.string());
        if (exit.exit_code == 0) return exit_write_failed;
    }
    return exit.exit_code;
}

}  // namespace xfer
