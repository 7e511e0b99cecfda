// A stop must end a run whose worker process cannot take it (issue 54, item 3). A payload that
// SIGSTOPs its own worker process held SIGINT to xferlab for 40 s and more, until the run's
// timeout. Now the parent continues its stopped workers (SIGCONT) with the stop, and kills a
// worker process that stays silent for 5 s after it (SIGKILL): the run says so, and the partial
// report is written.
#include <signal.h>

#include <filesystem>
#include <fstream>

#include "support/catch.hpp"
#include "support/run_command.hpp"
#include "support/small_scenario.hpp"
#include "support/spawn.hpp"
#include "support/text.hpp"

namespace fs = std::filesystem;
using namespace xfer::test;
using nlohmann::json;

namespace {

// A host run, then a run of launcher process whose worker stops itself (once, or `forever`).
// The 20 s timeout bounds the run where the stop cannot end it (before the fix).
fs::path stopping_scenario(const fs::path& dir, bool forever) {
    const fs::path file = dir / "stops.toml";
    std::ofstream(file) << "[scenario]\nname = \"stops\"\nbackend = \"host\"\ntimeout = \"20s\"\n"
                           "[transfer]\nbytes = \"64KiB\"\nrepetitions = 2\nwarmup = 0\n"
                           "[params]\nready_file = \""
                        << (dir / "ready-{worker}").string()
                        << "\"\nforever = " << (forever ? "true" : "false")
                        << "\n[[run]]\nlabel = \"host\"\nlauncher = \"host\"\n"
                           "[[run]]\nlabel = \"stops\"\nlauncher = \"process\"\n"
                           "payload = \"stop_self.py\"\n";
    return file;
}

// Runs the scenario, SIGINTs xferlab once the worker process has stopped itself, and returns the
// stopping run as results.json holds it after checking what every stop gives.
json interrupted_run(bool forever, const std::string& tag) {
    const fs::path dir = fresh_temp_dir(tag);
    const fs::path out = dir / "out";
    const std::string payloads = (fs::path(XFER_SOURCE_DIR) / "tests" / "payloads").string();
    Background b = start_background(xferlab() + " run --out " + quoted(out) + " --payload-dir " +
                                        quoted(fs::path(payloads)) + " " +
                                        quoted(stopping_scenario(dir, forever)),
                                    dir);
    REQUIRE(b.pid > 0);
    REQUIRE(wait_until([&] { return fs::exists(dir / "ready-0") || ::kill(b.pid, 0) != 0; }));
    std::this_thread::sleep_for(std::chrono::milliseconds(200));  // it stops itself meanwhile
    ::kill(b.pid, SIGINT);
    const int code = wait_exit_code(b.pid);
    const std::string err = slurp(b.err);
    INFO(err);
    CHECK(code == 130);
    CHECK(contains(err, "interrupted after 2 of 2 runs"));
    const json results = results_of(out);
    CHECK(results["interrupted"] == true);
    CHECK(results["complete"] == true);
    CHECK_FALSE(fs::exists(out / ".xferlab.lock"));
    REQUIRE(results["runs"].size() == 2);
    CHECK(results["runs"][0]["status"] == "ok");
    json run = results["runs"][1];
    fs::remove_all(dir);
    return run;
}

}  // namespace

TEST_CASE(
    "SIGINT while a worker process has stopped itself: it is continued and stops, its "
    "records kept",
    "[integration][signals][process]") {
    const json run = interrupted_run(false, "stopped-worker");
    INFO(run.dump(1));
    CHECK(run["status"] == "interrupted");
    CHECK(run["errors"].empty());
    // The copy made before it stopped itself, at least (past output.inline_records copies the
    // records are in results.sqlite alone, and results.json counts them).
    CHECK((run.contains("records") ? run["records"].size() : run["record_count"].get<size_t>()) >=
          1);
}

TEST_CASE(
    "SIGINT while a worker process keeps stopping itself: killed after 5 s, the run says "
    "why",
    "[integration][signals][process]") {
    const json run = interrupted_run(true, "wedged-worker");
    INFO(run.dump(1));
    CHECK(run["status"] == "failed");
    REQUIRE_FALSE(run["errors"].empty());
    CHECK(contains(run["errors"][0].get<std::string>(), "worker 0 (process "));
    CHECK(contains(run["errors"][0].get<std::string>(),
                   ") did not stop within 5 s of the stop (it was stopped (SIGSTOP, or a "
                   "debugger)): xferlab killed it (SIGKILL)"));
}
