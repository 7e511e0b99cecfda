#include "run/plan/plan_execution.hpp"

#include <fmt/format.h>
#include <signal.h>

#include "embed/payload_output.hpp"
#include "embed/python.hpp"
#include "report/analysis/run_stats.hpp"
#include "results/machine_facts.hpp"
#include "run/output/output_dir.hpp"
#include "run/plan/plan_recorder.hpp"
#include "run/plan/progress.hpp"
#include "system/host_description.hpp"
#include "system/stop_signal.hpp"
#include "system/stream_readers.hpp"
#include "util/clock.hpp"
#include "util/command_line.hpp"
#include "util/version.hpp"

namespace xfer {

PlanExecution execute_plan(PlanRunner& runner, const Scenario& scenario,
                           const std::vector<Run>& plan, ResultsFolderWriter& folder,
                           PlanAnalysis& analysis, nlohmann::json sizing, bool show_progress,
                           const std::atomic<bool>& stop, int exit_code_on_payload_exit) {
    PlanExecution out;
    Results& results = out.results;
    results.tool_version = tool_version();
    results.git_describe = git_describe();
    results.host = host_from_json(describe_host());
    // Which Python: the choice now; its full description once a run has started it.
    results.host->python = python_description();
    results.scenario = scenario.resolved;
    results.command = command_line();
    results.started_wall_ns = wall_ns();
    results.sizing = std::move(sizing);
    results.planned_runs = int(plan.size());

    // A payload's output goes to stderr and, from here on, into the results folder too.
    set_payload_output_log(folder.dir() / kPayloadLogFile);
    Progress progress(show_progress, int(plan.size()));
    {
        // Every completed run reaches the disk before the next starts (results.sqlite, journal).
        PlanRecorder recorder(results, analysis, folder);
        set_payload_exit_handler([&recorder, exit_code_on_payload_exit](int code) {
            recorder.abort_current(fmt::format("payload called os._exit({})", code),
                                   exit_code_on_payload_exit);
        });
        for (const Run& run : plan) {
            // A closed pipe on stderr or stdout stops the plan as SIGINT would, before the next
            // run rather than at its next line (SIGPIPE is ignored: cli/cmd_run.cpp).
            out.reader_gone = standard_stream_without_reader();
            if (!out.reader_gone.empty()) request_stop(SIGPIPE);
            if (stop.load() || !recorder.write_failure().empty()) break;
            progress.begin(run);
            recorder.begin(run);
            RunResult result = runner.run(run);
            if (!results.host->python.value("started", false))
                results.host->python = python_description();
            RunAnalysis stats = analyze_run(result);  // once: progress, files and report
            progress.end(result, stats);
            out.failed |= result.status == RunStatus::failed;
            recorder.add(std::move(result), std::move(stats));
        }
        set_payload_exit_handler(nullptr);
        // A plan stopped by a failed write stays incomplete: the report says how many of the
        // planned runs are there.
        results.complete = recorder.write_failure().empty();
        results.interrupted = stop.load();
        results.devices = devices_from_json(runner.devices());
        recorder.finish();
        out.write_failure = recorder.write_failure();
    }
    set_payload_output_log({});
    return out;
}

void follow_plan_as_rank(PlanRunner& runner, const std::vector<Run>& plan) {
    for (const Run& run : plan)
        if (launcher_traits(run.settings.launcher).spans_mpi_ranks) runner.run(run);
}

}  // namespace xfer
