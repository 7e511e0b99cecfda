// PlanRecorder: a completed run reaches the journal and the results files at once, marked
// incomplete; a run that cannot finish (os._exit) is recorded as failed before the process ends.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "report/analysis/run_stats.hpp"
#include "run/plan_recorder.hpp"
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

}  // namespace

TEST_CASE("the first completed run is in the journal and in every results file at once",
          "[recorder]") {
    const fs::path dir = xfer::test::fresh_temp_dir("recorder");
    Config config;
    Results results;
    results.planned_runs = 2;
    const Run run0 = planned(0, "first");
    {
        std::vector<RunAnalysis> stats;
        PlanRecorder recorder(results, stats, config, dir);
        recorder.begin(run0);
        recorder.add(completed(run0), analyze_run(completed(run0)));
        CHECK(stats.size() == 1);  // kept beside the run for every later rewrite
        CHECK(lines_of(dir / "journal.jsonl") == 1);
        const json j = json::parse(xfer::test::slurp(dir / "results.json"));
        CHECK_FALSE(j["complete"].get<bool>());
        CHECK(j["planned_runs"].get<int>() == 2);
        REQUIRE(j["runs"].size() == 1);
        CHECK(j["runs"][0]["label"].get<std::string>() == "first");
        CHECK(lines_of(dir / "copies.csv") == 1);  // the header: run 0 made no copies
        CHECK(fs::exists(dir / "trace.json"));
    }
    CHECK(results.runs.size() == 1);
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
        std::vector<RunAnalysis> stats;
        PlanRecorder recorder(results, stats, config, dir);
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
    const json j = json::parse(xfer::test::slurp(dir / "results.json"));
    CHECK_FALSE(j["complete"].get<bool>());
    REQUIRE(j["runs"].size() == 2);
    CHECK(j["runs"][0]["status"].get<std::string>() == "ok");
    CHECK(j["runs"][1]["status"].get<std::string>() == "failed");
    CHECK(j["runs"][1]["errors"][0].get<std::string>().find(
              "payload called os._exit(3) in run 1 (second)") == 0);
    fs::remove_all(dir);
}
