// An output folder is never shared by two runs (issue #12): `run --out DIR` into a folder that
// holds an earlier run's output is refused (exit 2) unless --force, which deletes only the files
// xferlab writes; the journal then holds only the new run.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "support/catch.hpp"
#include "support/run_command.hpp"
#include "support/text.hpp"

namespace fs = std::filesystem;
using namespace xfer::test;
using nlohmann::json;

namespace {

// A scenario called `name` with one host run per label.
fs::path write_named_scenario(const fs::path& dir, const std::string& file, const std::string& name,
                              const std::vector<std::string>& labels) {
    const fs::path path = dir / file;
    std::ofstream out(path);
    out << "[scenario]\nname = \"" << name << "\"\nbackend = \"host\"\n"
        << "[transfer]\nbytes = \"64KiB\"\nrepetitions = 2\nwarmup = 0\n[threads]\ncount = 1\n";
    for (const auto& label : labels)
        out << "[[run]]\nlauncher = \"host\"\nlabel = \"" << label << "\"\n";
    return path;
}

CommandResult run_into(const fs::path& scenario, const fs::path& out,
                       const std::string& extra = "") {
    return run_command(xferlab() + " run '" + scenario.string() + "' --quiet --out '" +
                       out.string() + "'" + extra);
}

std::vector<json> journal(const fs::path& out) {
    std::vector<json> lines;
    std::ifstream in(out / "journal.jsonl");
    for (std::string line; std::getline(in, line);) lines.push_back(json::parse(line));
    return lines;
}

}  // namespace

TEST_CASE("run --out into a folder holding an earlier run's output: exit 2, the folder untouched",
          "[integration][output]") {
    auto dir = fresh_temp_dir("reuse");
    auto out = dir / "out";
    auto first =
        run_into(write_named_scenario(dir, "first.toml", "first", {"old-a", "old-b"}), out);
    INFO(first.err);
    REQUIRE(first.exit_code == 0);
    const std::string results_before = slurp(out / "results.json");
    const std::string journal_before = slurp(out / "journal.jsonl");

    auto again = run_into(write_named_scenario(dir, "second.toml", "second", {"new"}), out);
    INFO(again.err);
    CHECK(again.exit_code == 2);
    CHECK(contains(again.err,
                   "xferlab: output folder " + out.string() +
                       " already holds the output of an earlier run (results.json, "
                       "copies.csv, runs.csv, trace.json, results.sqlite, journal.jsonl): this "
                       "run's would be "
                       "mixed with it. Choose another folder (--out), or add --force "
                       "to delete those files first (other files in the folder are "
                       "kept)"));
    CHECK(contains(again.err, "second.toml: nothing was run"));
    CHECK(again.out.empty());
    CHECK(slurp(out / "results.json") == results_before);
    CHECK(slurp(out / "journal.jsonl") == journal_before);
    fs::remove_all(dir);
}

TEST_CASE("run --force: the earlier run's files go, other files stay, the journal is the new run's",
          "[integration][output]") {
    auto dir = fresh_temp_dir("force");
    auto out = dir / "out";
    REQUIRE(run_into(write_named_scenario(dir, "first.toml", "first", {"old-a", "old-b"}), out)
                .exit_code == 0);
    // What a kill during a rewrite leaves (xferlab's), and files that are not xferlab's.
    std::ofstream(out / ".results.json.tmp.4242") << "partial";
    std::ofstream(out / "results.sqlite-wal") << "SQLite's log, left by a kill";
    std::ofstream(out / "notes.txt") << "mine";
    std::ofstream(out / "results.json.old") << "mine too";

    auto forced =
        run_into(write_named_scenario(dir, "second.toml", "second", {"new"}), out, " --force");
    INFO(forced.err);
    REQUIRE(forced.exit_code == 0);
    CHECK(contains(forced.err,
                   "xferlab: --force: deleted results.json, copies.csv, runs.csv, trace.json, "
                   "results.sqlite, results.sqlite-wal, journal.jsonl, .results.json.tmp.4242 "
                   "from " +
                       out.string()));
    const auto lines = journal(out);
    REQUIRE(lines.size() == 1);
    CHECK(lines[0]["index"].get<int>() == 0);
    CHECK(lines[0]["label"].get<std::string>() == "new");
    const json results = json::parse(slurp(out / "results.json"));
    CHECK(results["scenario"]["scenario"]["name"].get<std::string>() == "second");
    CHECK(results["runs"].size() == 1);
    CHECK_FALSE(fs::exists(out / ".results.json.tmp.4242"));
    CHECK_FALSE(fs::exists(out / "results.sqlite-wal"));
    CHECK(slurp(out / "notes.txt") == "mine");
    CHECK(slurp(out / "results.json.old") == "mine too");
    // The journal renders as the new run alone (it read runs 0,1,0 before --force existed).
    auto report = run_command(xferlab() + " report '" + (out / "journal.jsonl").string() + "'");
    CHECK(report.exit_code == 0);
    CHECK(contains(report.out, "new"));
    CHECK_FALSE(contains(report.out, "old-a"));
    fs::remove_all(dir);
}

TEST_CASE("run with several files and --out: one folder per scenario name, inside --out",
          "[integration][output]") {
    auto dir = fresh_temp_dir("several");
    auto out = dir / "out";
    // A name with '/' stays one folder inside --out; a second scenario of the same name is
    // refused rather than mixed into (or, with --force, deleting) the first one's folder.
    auto a = write_named_scenario(dir, "a.toml", "../escape", {"a"});
    auto b = write_named_scenario(dir, "b.toml", "../escape", {"b"});
    auto c = write_named_scenario(dir, "c.toml", "other", {"c"});
    auto r = run_command(xferlab() + " run '" + a.string() + "' '" + b.string() + "' '" +
                         c.string() + "' --quiet --force --out '" + out.string() + "'");
    INFO(r.err);
    CHECK(r.exit_code == 2);
    CHECK(contains(r.err, b.string() + ": its output folder " + (out / ".._escape").string() +
                              " is also the one of " + a.string() +
                              " (both scenarios are named \"../escape\"): scenarios run by one "
                              "command need different names"));
    CHECK_FALSE(fs::exists(dir / "escape"));
    // Every file's folder is taken before the first runs: the clash refuses all three, and
    // the folders made for them are gone again.
    CHECK(contains(r.err,
                   "nothing was run: every scenario file is checked before the first "
                   "runs, and 1 of 3 cannot run"));
    CHECK_FALSE(fs::exists(out / ".._escape"));
    CHECK_FALSE(fs::exists(out / "other"));
    fs::remove_all(dir);
}

TEST_CASE("config output.dir without {timestamp} holding a run's output: refused like --out",
          "[integration][output]") {
    auto dir = fresh_temp_dir("config-out");
    const fs::path config = dir / "xferlab.toml";
    std::ofstream(config) << "[output]\ndir = \"" << (dir / "fixed-{scenario}").string() << "\"\n";
    auto scenario = write_named_scenario(dir, "s.toml", "s", {"only"});
    const std::string command =
        xferlab() + " run '" + scenario.string() + "' --quiet --config '" + config.string() + "'";
    REQUIRE(run_command(command).exit_code == 0);
    auto again = run_command(command);
    CHECK(again.exit_code == 2);
    CHECK(contains(again.err, "output folder " + (dir / "fixed-s").string() +
                                  " already holds the output of an earlier run"));
    CHECK(contains(again.err, "Choose another folder (output.dir), or add --force"));
    CHECK(journal(dir / "fixed-s").size() == 1);
    fs::remove_all(dir);
}
