// What a command prints on stdout is checked to have arrived (issue 48, item 8): `report DIR >
// /dev/full` and `report DIR >&-` exited 0 with the report lost. Now every command that prints
// its results there (report in each format, run, check, compare, list, --help) exits 1 with a
// line on stderr when stdout is full or closed; a command that failed already keeps its own
// code. With stdout closed, fd 1 went to the first file xferlab opened (run: the output lock),
// and the report was written into that file.
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "support/catch.hpp"
#include "support/run_command.hpp"
#include "support/small_scenario.hpp"
#include "support/text.hpp"

namespace fs = std::filesystem;
using namespace xfer::test;

namespace {

// `command` with its stdout sent to `target` (a shell redirection: "> /dev/full", ">&-"), its
// stderr captured.
CommandResult with_stdout(const std::string& command, const std::string& target) {
    return run_command("{ " + command + " " + target + "; }");
}

// A results folder of one small run.
fs::path results_dir(const fs::path& dir) {
    const fs::path out = dir / "out";
    const auto r = run_command(xferlab() + " run " + quoted(write_small_scenario(dir, "small")) +
                               " --quiet --out " + quoted(out));
    REQUIRE(r.exit_code == 0);
    return out;
}

// Exit 1 and the line that says stdout lost what was written to it, with the system's reason.
void check_lost(const CommandResult& r, const std::string& reason) {
    INFO(r.err);
    CHECK(r.exit_code == 1);
    CHECK(contains(r.err, "xferlab: what this command printed could not be written to stdout"));
    CHECK(contains(r.err, reason));
}

}  // namespace

TEST_CASE("report to a full or closed stdout: exit 1 with a message on stderr",
          "[integration][lost-output]") {
    const auto dir = fresh_temp_dir("lost-report");
    const fs::path out = results_dir(dir);
    const std::string report = xferlab() + " report " + quoted(out);
    for (const std::string format : {"", " --format json", " --format csv", " --full"}) {
        INFO("report" << format);
        check_lost(with_stdout(report + format, "> /dev/full"), "No space left on device");
        check_lost(with_stdout(report + format, ">&-"), "stdout is closed");
    }
    // Where stdout takes it, nothing changes.
    const auto fine = run_command(report);
    CHECK(fine.exit_code == 0);
    CHECK(fine.err.empty());
    fs::remove_all(dir);
}

TEST_CASE("check, compare, list and --help to a full or closed stdout: exit 1",
          "[integration][lost-output]") {
    const auto dir = fresh_temp_dir("lost-others");
    const fs::path out = results_dir(dir);
    const fs::path small = dir / "small.toml";
    std::ofstream(dir / "list.toml") << "[run]\nscenario_dir = " << quoted(dir) << "\n";
    const std::vector<std::string> commands{
        " check " + quoted(small), " compare " + quoted(out) + " " + quoted(out),
        " list --config " + quoted(dir / "list.toml"), " --help", " run --help"};
    for (const std::string& command : commands) {
        INFO(command);
        check_lost(with_stdout(xferlab() + command, "> /dev/full"), "No space left on device");
        check_lost(with_stdout(xferlab() + command, ">&-"), "stdout is closed");
    }
    // A command that failed keeps its own exit code: bad input stays 2.
    const auto bad = with_stdout(xferlab() + " check " + quoted(dir / "missing.toml"), ">&-");
    CHECK(bad.exit_code == 2);
    fs::remove_all(dir);
}

TEST_CASE("run to a full or closed stdout: the results are written, the run exits 1",
          "[integration][lost-output]") {
    const auto dir = fresh_temp_dir("lost-run");
    const fs::path small = write_small_scenario(dir, "small");
    for (const std::string target : {"> /dev/full", ">&-"}) {
        INFO(target);
        const fs::path out = dir / (target == ">&-" ? "closed" : "full");
        const auto r = with_stdout(
            xferlab() + " run " + quoted(small) + " --quiet --out " + quoted(out), target);
        check_lost(r, target == ">&-" ? "stdout is closed" : "No space left on device");
        // The files hold the run; the report meant for stdout went into none of them.
        CHECK(results_of(out)["runs"].size() == 1);
        CHECK(results_of(out)["complete"] == true);
        CHECK_FALSE(contains(slurp(out / "journal.jsonl"), "What ran"));
        CHECK_FALSE(fs::exists(out / ".xferlab.lock"));
    }
    fs::remove_all(dir);
}
