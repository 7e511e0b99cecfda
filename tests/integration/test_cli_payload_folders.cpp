// What a payload may do to the process's folders and descriptors (issue 54, items 1 and 15).
// os.chdir: a relative output folder then named another folder: with `os.chdir(other)` and
// `--out out`, an earlier run's folder under `other` had its results.json, copies.csv, runs.csv
// and trace.json replaced and its journal appended with this plan's runs, while the real folder
// kept one run, "complete": false and a stale lock; with the default folder and
// `os.chdir("/")` xferlab created /results/..., exited 3 and counted "0 in journal.jsonl". The
// output folder is now resolved to an absolute path before any payload runs, and held open: a
// folder moved away and replaced is not written into. os.closerange(3, 1024): the run was
// lost from results.sqlite (exit 3, "locking protocol"); results.sqlite is now opened for each
// write, and the lock and the payload log notice a descriptor that is no longer theirs.
#include <filesystem>
#include <fstream>
#include <set>

#include "results/record_store.hpp"
#include "results/sqlite_db.hpp"
#include "support/catch.hpp"
#include "support/run_command.hpp"
#include "support/small_scenario.hpp"
#include "support/text.hpp"

namespace fs = std::filesystem;
using namespace xfer::test;

namespace {

// Host runs around a python run of `payload` with `params` (TOML lines of [params]): `before`
// host runs ahead of it, one after it.
fs::path payload_scenario(const fs::path& dir, const std::string& payload,
                          const std::string& params, int before = 0) {
    const fs::path file = dir / "hostile.toml";
    std::ofstream toml(file);
    toml << "[scenario]\nname = \"hostile\"\nbackend = \"host\"\n"
            "[transfer]\nbytes = \"64KiB\"\nrepetitions = 2\nwarmup = 0\n"
            "[params]\n"
         << params << "\n";
    for (int i = 0; i < before; ++i) toml << "[[run]]\nlabel = \"before\"\nlauncher = \"host\"\n";
    toml << "[[run]]\nlabel = \"payload\"\nlauncher = \"python\"\npayload = \"" << payload
         << "\"\n[[run]]\nlabel = \"after\"\nlauncher = \"host\"\n";
    return file;
}

fs::path chdir_scenario(const fs::path& dir, const fs::path& to) {
    return payload_scenario(dir, "chdir.py", "to = \"" + to.string() + "\"");
}

std::string payload_dir() { return quoted(fs::path(XFER_SOURCE_DIR) / "tests" / "payloads"); }

std::set<std::string> names_in(const fs::path& dir) {
    std::set<std::string> names;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec)) names.insert(e.path().filename());
    return names;
}

// Both runs in `out`, in every file, and the folder released.
void check_whole_output(const fs::path& out) {
    const auto results = results_of(out);
    CHECK(results["complete"] == true);
    REQUIRE(results["runs"].size() == 2);
    CHECK(results["runs"][1]["status"] == "ok");
    CHECK(line_count(slurp(out / "journal.jsonl")) == 2);
    CHECK(xfer::stored_run_count((out / "results.sqlite").string()) == 2);
    CHECK(line_count(slurp(out / "copies.csv")) == 1 + 1 + 2);  // header, 1 + 2 copies
    CHECK_FALSE(fs::exists(out / ".xferlab.lock"));
}

}  // namespace

TEST_CASE(
    "a payload's os.chdir does not move a relative --out: another folder's output is "
    "untouched",
    "[integration][faults]") {
    const fs::path dir = fresh_temp_dir("chdir-out");
    const fs::path home = dir / "home", elsewhere = dir / "elsewhere";
    fs::create_directories(home);
    // An earlier run's folder at the same relative path from where the payload moves to.
    fs::create_directories(elsewhere / "out");
    std::ofstream(elsewhere / "out" / "results.json") << "{\"earlier\": true}\n";
    std::ofstream(elsewhere / "out" / "journal.jsonl") << "{\"earlier\": true}\n";
    const auto r =
        run_command("cd " + quoted(home) + " && " + xferlab() + " run --quiet --payload-dir " +
                    payload_dir() + " --out out " + quoted(chdir_scenario(dir, elsewhere)));
    INFO(r.err);
    CHECK(r.exit_code == 0);
    check_whole_output(home / "out");
    CHECK(slurp(elsewhere / "out" / "results.json") == "{\"earlier\": true}\n");
    CHECK(slurp(elsewhere / "out" / "journal.jsonl") == "{\"earlier\": true}\n");
    CHECK(names_in(elsewhere / "out") == std::set<std::string>{"results.json", "journal.jsonl"});
    fs::remove_all(dir);
}

TEST_CASE("a payload's os.chdir does not move the default output folder", "[integration][faults]") {
    const fs::path dir = fresh_temp_dir("chdir-default");
    const fs::path home = dir / "home", elsewhere = dir / "elsewhere";
    fs::create_directories(home);
    fs::create_directories(elsewhere);
    const fs::path config = dir / "config.toml";
    std::ofstream(config) << "[output]\ndir = \"results/{timestamp}-{scenario}\"\n";
    const auto r = run_command("cd " + quoted(home) + " && " + xferlab() +
                               " run --quiet --config " + quoted(config) + " --payload-dir " +
                               payload_dir() + " " + quoted(chdir_scenario(dir, elsewhere)));
    INFO(r.err);
    CHECK(r.exit_code == 0);
    CHECK_FALSE(contains(r.err, "0 in"));
    CHECK(names_in(elsewhere).empty());  // no results/ made there
    const auto folders = names_in(home / "results");
    REQUIRE(folders.size() == 1);
    check_whole_output(home / "results" / *folders.begin());
    fs::remove_all(dir);
}

TEST_CASE(
    "a payload that moves the output folder away and makes another in its place: nothing "
    "is written into the new one, exit 3",
    "[integration][faults]") {
    const fs::path dir = fresh_temp_dir("replaced-out");
    const fs::path out = dir / "out";
    const auto r = run_command(
        xferlab() + " run --quiet --payload-dir " + payload_dir() + " --out " + quoted(out) + " " +
        quoted(payload_scenario(dir, "replace_folder.py", "folder = \"" + out.string() + "\"", 1)));
    INFO(r.err);
    CHECK(r.exit_code == 3);
    CHECK(contains(r.err, "output folder " + out.string() +
                              " is no longer the folder this run locked: it was moved, removed "
                              "or replaced while the plan ran"));
    CHECK(contains(r.err, "2 run(s) of 3 planned ran, and the plan stopped there"));
    CHECK(names_in(out).empty());  // the folder put in its place got nothing, not even a lock
    // The folder that was moved holds run 0, as written before the payload ran, and no lock.
    const fs::path moved = dir / "out-moved";
    CHECK(line_count(slurp(moved / "journal.jsonl")) == 1);
    CHECK(xfer::stored_run_count((moved / "results.sqlite").string()) == 1);
    CHECK_FALSE(fs::exists(moved / ".xferlab.lock"));
    fs::remove_all(dir);
}

TEST_CASE(
    "a payload that closes descriptors 3 to 1023: every run reaches results.sqlite, the "
    "payload log and the lock survive",
    "[integration][faults]") {
    const fs::path dir = fresh_temp_dir("closed-fds");
    const fs::path out = dir / "out";
    const auto r =
        run_command(xferlab() + " run --quiet --payload-dir " + payload_dir() + " --out " +
                    quoted(out) + " " + quoted(payload_scenario(dir, "close_fds.py", "", 1)));
    INFO(r.err);
    CHECK(r.exit_code == 0);
    const auto results = results_of(out);
    CHECK(results["complete"] == true);
    REQUIRE(results["runs"].size() == 3);
    for (const auto& run : results["runs"]) CHECK(run["status"] == "ok");
    CHECK(line_count(slurp(out / "journal.jsonl")) == 3);
    CHECK(xfer::stored_run_count((out / "results.sqlite").string()) == 3);
    xfer::SqliteDb db((out / "results.sqlite").string(), true);
    xfer::SqliteStatement check(db, "PRAGMA integrity_check");
    REQUIRE(check.step());
    CHECK(check.text(0) == "ok");
    CHECK(contains(slurp(out / "payload-output.log"), "descriptors 3 to 1023 closed"));
    CHECK_FALSE(fs::exists(out / ".xferlab.lock"));
    fs::remove_all(dir);
}
