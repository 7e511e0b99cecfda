// `xferlab run many.toml 2>&1 | head -1` (issue 54, item 4): once head had its line, the next
// progress line raised SIGPIPE and ended xferlab after run 1 of 15 with no message: exit 141,
// results.json "complete": false, the lock left behind. `run` now ignores SIGPIPE, sees between
// runs that its stream's reader has gone, and stops as on SIGINT: the final files are written,
// the folder released, exit 141 (docs/command-line.md).
#include <filesystem>
#include <fstream>

#include "results/record_store.hpp"
#include "support/catch.hpp"
#include "support/run_command.hpp"
#include "support/small_scenario.hpp"
#include "support/text.hpp"

namespace fs = std::filesystem;
using namespace xfer::test;

namespace {

// 15 trials of one host run, each at least 100 ms (five copies 20 ms apart): far longer than
// head takes to exit once it has its line.
fs::path many_runs(const fs::path& dir) {
    const fs::path file = dir / "many.toml";
    std::ofstream(file) << "[scenario]\nname = \"many\"\nbackend = \"host\"\ntrials = 15\n"
                           "[transfer]\nbytes = \"64KiB\"\nrepetitions = 5\nwarmup = 0\n"
                           "[threads]\nbetween = \"sleep:20ms\"\n"
                           "[[run]]\nlauncher = \"host\"\n";
    return file;
}

// `pipeline` run by bash; returns the exit status of its first command (PIPESTATUS[0]).
int first_status(const std::string& pipeline, const fs::path& dir) {
    const fs::path script = dir / "pipeline.sh", status = dir / "status";
    std::ofstream(script) << pipeline << "\necho ${PIPESTATUS[0]} > " << quoted(status) << "\n";
    run_command("bash " + quoted(script));
    return std::stoi(slurp(status));
}

}  // namespace

TEST_CASE(
    "run 2>&1 | head -1: the plan stops after the run in hand as on SIGINT, its files "
    "written, exit 141",
    "[integration][signals]") {
    const fs::path dir = fresh_temp_dir("closed-pipe");
    const fs::path out = dir / "out";
    const int status =
        first_status(xferlab() + " run --out " + quoted(out) + " " + quoted(many_runs(dir)) +
                         " 2>&1 | head -1 > " + quoted(dir / "first-line"),
                     dir);
    CHECK(status == 141);
    CHECK(slurp(dir / "first-line").rfind("[1/15] run 0", 0) == 0);
    const auto results = results_of(out);
    CHECK(results["complete"] == true);  // the final write happened
    CHECK(results["interrupted"] == true);
    const size_t ran = results["runs"].size();
    CHECK(ran >= 1);
    CHECK(ran < 15);
    CHECK(line_count(slurp(out / "journal.jsonl")) == ran);
    CHECK(xfer::stored_run_count((out / "results.sqlite").string()) == int64_t(ran));
    CHECK_FALSE(fs::exists(out / ".xferlab.lock"));
    fs::remove_all(dir);
}

TEST_CASE(
    "run | true: stdout's reader has gone before the plan ends, it stops as on SIGINT, "
    "exit 141",
    "[integration][signals]") {
    const fs::path dir = fresh_temp_dir("closed-stdout");
    const fs::path out = dir / "out";
    const int status =
        first_status(xferlab() + " run --out " + quoted(out) + " " + quoted(many_runs(dir)) +
                         " 2> " + quoted(dir / "stderr") + " | true",
                     dir);
    const std::string err = slurp(dir / "stderr");
    INFO(err);
    CHECK(status == 141);
    CHECK(contains(err, "xferlab: stdout's reader has gone (a closed pipe): stopped after "));
    CHECK(contains(err, " of 15 runs, as on SIGINT; writing a partial report"));
    const auto results = results_of(out);
    CHECK(results["complete"] == true);
    CHECK(results["interrupted"] == true);
    CHECK(results["runs"].size() < 15);
    CHECK_FALSE(fs::exists(out / ".xferlab.lock"));
    fs::remove_all(dir);
}
