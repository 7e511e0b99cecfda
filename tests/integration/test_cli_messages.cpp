// What a new user types by mistake gets a message that names it and says what to do: a folder
// for a scenario, a folder with no results, trace.json or copies.csv for results.json, a journal
// read alone, an unknown command, a string left open in a TOML file.
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "support/catch.hpp"
#include "support/run_command.hpp"
#include "support/text.hpp"

namespace fs = std::filesystem;
using namespace xfer::test;

namespace {

// A results folder written by one small run; removed with `dir`.
fs::path results_folder(const fs::path& dir) {
    const fs::path scenario = dir / "small.toml";
    std::ofstream(scenario) << "[scenario]\nname = \"small\"\nbackend = \"host\"\n"
                               "[transfer]\nbytes = \"64KiB\"\nrepetitions = 2\n"
                               "[[run]]\nlauncher = \"host\"\n";
    const fs::path out = dir / "out";
    const auto r = run_command(xferlab() + " run --quiet --out '" + out.string() + "' '" +
                               scenario.string() + "'");
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    return out;
}

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

}  // namespace

TEST_CASE("check and run of a folder say it is a folder", "[integration][messages]") {
    const auto dir = fresh_temp_dir("msg-folder");
    std::ofstream(dir / "a.toml") << "[[run]]\n";
    std::ofstream(dir / "b.toml") << "[[run]]\n";
    for (const std::string command : {" check '", " run --quiet '"}) {
        const auto r = run_command(xferlab() + command + dir.string() + "'");
        INFO(r.err);
        CHECK(r.exit_code == 2);
        CHECK(contains(r.err, dir.string() +
                                  ": error: is a folder, not a scenario file: give the scenario "
                                  "files in it (" +
                                  (dir / "*.toml").string() + " matches 2 files)\n"));
        CHECK_FALSE(contains(r.err, "no [[run]] table"));
    }
    fs::remove_all(dir);
}

TEST_CASE("report of a folder with no results in it names what to give",
          "[integration][messages]") {
    const auto dir = fresh_temp_dir("msg-report-folder");
    const fs::path out = dir / "empty";
    fs::create_directory(out);
    const auto empty = run_command(xferlab() + " report '" + out.string() + "'");
    CHECK(empty.exit_code == 2);
    CHECK(empty.err == "xferlab: " + out.string() +
                           " is a folder with no results.json, results.sqlite or journal.jsonl in "
                           "it: give the results.json (or results.sqlite, or journal.jsonl) that "
                           "`xferlab run` wrote\n");
    fs::remove_all(dir);
}

TEST_CASE("report of trace.json, copies.csv or a scenario says what the file is",
          "[integration][messages]") {
    const auto dir = fresh_temp_dir("msg-report-kind");
    const fs::path out = results_folder(dir);
    const std::string instead = "give " + (out / "results.json").string() + " (or " +
                                (out / "results.sqlite").string() + ", or " +
                                (out / "journal.jsonl").string() + ")\n";
    const auto trace = run_command(xferlab() + " report '" + (out / "trace.json").string() + "'");
    CHECK(trace.exit_code == 2);
    CHECK(trace.err ==
          "xferlab: " + (out / "trace.json").string() +
              " is a Chrome trace (open it in the Perfetto UI), not results: " + instead);
    const auto csv = run_command(xferlab() + " report '" + (out / "copies.csv").string() + "'");
    CHECK(csv.exit_code == 2);
    CHECK(csv.err == "xferlab: " + (out / "copies.csv").string() +
                         " is the per-copy CSV (copies.csv), not results: " + instead);
    const std::string scenario = (dir / "small.toml").string();
    const auto toml = run_command(xferlab() + " report '" + scenario + "'");
    CHECK(toml.exit_code == 2);
    CHECK(toml.err == "xferlab: " + scenario + " is a scenario file: `xferlab run " + scenario +
                          "` runs it, and `xferlab report` reads the results.json (or "
                          "journal.jsonl) that it writes\n");
    CHECK_FALSE(contains(trace.err + csv.err + toml.err, "json.exception"));
    fs::remove_all(dir);
}

TEST_CASE("report of a journal names the version and scenario as results.json does",
          "[integration][messages]") {
    const auto dir = fresh_temp_dir("msg-journal");
    const fs::path out = results_folder(dir);
    const auto results =
        run_command(xferlab() + " report '" + (out / "results.json").string() + "'");
    const auto journal =
        run_command(xferlab() + " report '" + (out / "journal.jsonl").string() + "'");
    INFO(journal.err);
    REQUIRE(results.exit_code == 0);
    REQUIRE(journal.exit_code == 0);
    CHECK(contains(first_line(results.out), ": scenario small, 1 run"));
    CHECK(first_line(journal.out) == first_line(results.out));  // "xferlab 0.1.0 (...): ..."
    CHECK_FALSE(contains(journal.out, "xferlab ()"));
    // Each line carries it: a journal cut down to any one line still says it.
    const auto line = nlohmann::json::parse(first_line(slurp(out / "journal.jsonl")));
    CHECK(line["plan"]["scenario"]["scenario"]["name"] == "small");
    CHECK(line["plan"]["tool_version"] ==
          nlohmann::json::parse(slurp(out / "results.json"))["tool_version"]);
    fs::remove_all(dir);
}

TEST_CASE("a journal from before the lines named their plan says so", "[integration][messages]") {
    const auto dir = fresh_temp_dir("msg-old-journal");
    const fs::path out = results_folder(dir);
    auto line = nlohmann::json::parse(first_line(slurp(out / "journal.jsonl")));
    line.erase("plan");
    std::ofstream(dir / "old.jsonl") << line.dump() << "\n";
    const auto r = run_command(xferlab() + " report '" + (dir / "old.jsonl").string() + "'");
    CHECK(r.exit_code == 0);
    CHECK(contains(r.err,
                   "old.jsonl: its lines do not name the tool version and scenario (a "
                   "journal written before they did): both are reported as unknown\n"));
    CHECK(first_line(r.out) == "xferlab unknown (unknown): scenario (unnamed), 1 run");
    fs::remove_all(dir);
}

TEST_CASE("an unknown command is named, with the closest one and the list",
          "[integration][messages]") {
    const std::string commands =
        "run, check, list, devices, threads, report, plot, compare, watch, completion, help "
        "(xferlab --help)\n";
    const auto foo = run_command(xferlab() + " foo");
    CHECK(foo.exit_code == 2);
    CHECK(foo.err == "xferlab: unknown command 'foo'; the commands are " + commands);
    const auto typo = run_command(xferlab() + " rnu scenarios/seed-h2d-threads.toml");
    CHECK(typo.exit_code == 2);
    CHECK(typo.err ==
          "xferlab: unknown command 'rnu' (did you mean 'run'?); the commands are " + commands);
    const auto none = run_command(xferlab());
    CHECK(none.exit_code == 2);
    CHECK(none.err == "xferlab: a command is required: " + commands);
    CHECK_FALSE(contains(foo.err + typo.err + none.err, "A subcommand is required"));
}

TEST_CASE("a config file with a string left open gets the missing-quote hint",
          "[integration][messages]") {
    const auto dir = fresh_temp_dir("msg-config");
    std::ofstream(dir / "bad.toml") << "[output]\ndir = \"results\n";
    const auto r = run_command(xferlab() + " list --config '" + (dir / "bad.toml").string() + "'");
    CHECK(r.exit_code == 2);
    CHECK(contains(r.err, (dir / "bad.toml").string() +
                              ":2:15: error: line 2 ends inside a string: add the closing \""));
    fs::remove_all(dir);
}
