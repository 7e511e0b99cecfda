// PlanRecorder: a completed run reaches the plan's record (journal and results.sqlite) at once
// and nothing else is written until the plan's end; a run that cannot finish (os._exit) is
// recorded as failed and every file written before the process ends.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "report/analysis/run_stats.hpp"
#include "results/record_store.hpp"
#include "run/output/results_output.hpp"
#include "run/plan/plan_recorder.hpp"
#include "support/catch.hpp"
#include "support/run_command.hpp"

namespace fs = std::filesystem;
using namespace xfer;
using nlohmann::json;

namespace {

Run planned(int index, const std::string& label) {
    Run r;
    r.position.index = index;
    r.position.label = label;
    r.settings.launcher = "host";
    r.settings.threads.count = 1;
    r.settings.transfer.bytes = 4096;
    return r;
}

RunResult completed(const Run& run) {
    RunResult r;
    r.settings = run.settings;
    r.position = run.position;
    return r;
}

size_t lines_of(const fs::path& p) {
    const std::string text = xfer::test::slurp(p);
    return size_t(std::count(text.begin(), text.end(), '\n'));
}

std::set<std::string> names_in(const fs::path& dir) {
    std::set<std::string> names;
    for (const auto& e : fs::directory_iterator(dir)) names.insert(e.path().filename().string());
    return names;
}

}  // namespace

TEST_CASE("a completed run is in the journal and results.sqlite at once, the reports at the end",
          "[recorder]") {
    const fs::path dir = xfer::test::fresh_temp_dir("recorder");
    Config config;
    Results results;
    results.planned_runs = 2;
    PlanAnalysis analysis;
    const auto files = results_folder_writer(dir, config, analysis);
    const Run run0 = planned(0, "first"), run1 = planned(1, "second");
    {
        PlanRecorder recorder(results, analysis, *files);
        recorder.begin(run0);
        recorder.add(completed(run0), analyze_run(completed(run0)));
        CHECK(analysis.runs() == 1);  // kept beside the run for the reports at the end
        CHECK(lines_of(dir / "journal.jsonl") == 1);
        CHECK(stored_run_count((dir / "results.sqlite").string()) == 1);
        // Nothing else: no report file is written (or rewritten) per run.
        for (const auto& name : names_in(dir)) {
            INFO(name);
            CHECK((name == "journal.jsonl" || name.rfind("results.sqlite", 0) == 0));
        }
        recorder.begin(run1);
        recorder.add(completed(run1), analyze_run(completed(run1)));
        CHECK(lines_of(dir / "journal.jsonl") == 2);
        CHECK_FALSE(fs::exists(dir / "results.json"));
    }
    results.complete = true;
    const FolderFinished finished = files->finish(results);
    CHECK(finished.failures.empty());
    CHECK(finished.reports == std::vector<fs::path>{dir / "results.json", dir / "copies.csv",
                                                    dir / "runs.csv", dir / "trace.json"});
    const json j = json::parse(xfer::test::slurp(dir / "results.json"));
    CHECK(j["complete"].get<bool>());
    CHECK(j["planned_runs"].get<int>() == 2);
    REQUIRE(j["runs"].size() == 2);
    CHECK(j["runs"][0]["label"].get<std::string>() == "first");
    CHECK(j["runs"][1]["analysis"].is_object());
    CHECK(lines_of(dir / "copies.csv") == 1);  // the header: the runs made no copies
    CHECK(lines_of(dir / "journal.jsonl") == 2);
    // The store's end: one file again, its header complete.
    CHECK_FALSE(fs::exists(dir / "results.sqlite-wal"));
    CHECK(read_record_store((dir / "results.sqlite").string()).complete);
    fs::remove_all(dir);
}

TEST_CASE("abort_current records the running run as failed, writes, and exits with the code",
          "[recorder]") {
    const fs::path dir = xfer::test::fresh_temp_dir("recorder-abort");
    const pid_t child = fork();
    REQUIRE(child >= 0);
    if (child == 0) {
        // The child plays xferlab: run 0 completed, run 1 calls os._exit.
        Config config;
        Results results;
        PlanAnalysis analysis;
        const auto files = results_folder_writer(dir, config, analysis);
        PlanRecorder recorder(results, analysis, *files);
        const Run run0 = planned(0, "first"), run1 = planned(1, "second");
        recorder.begin(run0);
        recorder.add(completed(run0), analyze_run(completed(run0)));
        recorder.begin(run1);
        recorder.abort_current("payload called os._exit(3)", 7);
    }
    int status = 0;
    REQUIRE(waitpid(child, &status, 0) == child);
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 7);
    CHECK(lines_of(dir / "journal.jsonl") == 2);
    CHECK(stored_run_count((dir / "results.sqlite").string()) == 2);
    const json j = json::parse(xfer::test::slurp(dir / "results.json"));
    CHECK_FALSE(j["complete"].get<bool>());
    REQUIRE(j["runs"].size() == 2);
    CHECK(j["runs"][0]["status"].get<std::string>() == "ok");
    CHECK(j["runs"][1]["status"].get<std::string>() == "failed");
    CHECK(j["runs"][1]["errors"][0].get<std::string>().find(
              "payload called os._exit(3) in run 1 (second)") == 0);
    CHECK(fs::exists(dir / "trace.json"));
    fs::remove_all(dir);
}
