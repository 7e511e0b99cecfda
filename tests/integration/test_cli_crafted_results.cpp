// `report`, `plot` and `compare` of a crafted results file (issue 48, item 3): every record's
// worker set to 10^9 (a 68 KB results.json, or one SQLite UPDATE) made `plot` grow to 24 GB
// and `report` abort with std::bad_alloc under `ulimit -v`; `schema_version: 999` was read
// silently; a size of -1 read as 2^64-1. Each is now exit 2 with a message naming the run and
// record, under an address-space limit that an allocation by those numbers would break.
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>

#include "support/catch.hpp"
#include "support/run_command.hpp"
#include "support/sanitizer_build.hpp"
#include "support/small_scenario.hpp"
#include "support/text.hpp"

namespace fs = std::filesystem;
using namespace xfer::test;
using nlohmann::json;

namespace {

// `command` under a 4 GB address-space limit, where a sanitizer's shadow memory allows one.
CommandResult limited(const std::string& command) {
    if (kSanitizerBuild) return run_command(command);
    return run_command("bash -c 'ulimit -v 4000000; exec \"$0\" \"$@\"' " + command);
}

// A results folder of one small run (two workers), and its results.json as JSON.
fs::path small_results(const fs::path& dir) {
    const fs::path out = dir / "out";
    const auto r = run_command(xferlab() + " run --quiet --set threads.count=2 --out " +
                               quoted(out) + " " + quoted(write_small_scenario(dir, "small")));
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    return out;
}

fs::path crafted(const fs::path& out, const std::string& name,
                 const std::function<void(json&)>& edit) {
    json j = results_of(out);
    edit(j);
    std::ofstream(out.parent_path() / name) << j.dump();
    return out.parent_path() / name;
}

}  // namespace

TEST_CASE("report, plot and compare refuse records of worker 10^9 without allocating by it",
          "[integration][bounds]") {
    const auto dir = fresh_temp_dir("crafted-worker");
    const fs::path out = small_results(dir);
    const fs::path evil = crafted(out, "evil.json", [](json& j) {
        for (auto& r : j["runs"][0]["records"]) r["worker"] = 1000000000;
    });
    for (const std::string& command :
         std::vector<std::string>{" report ", " plot ", " compare " + quoted(out) + " "}) {
        const auto r = limited(xferlab() + command + quoted(evil));
        INFO(command << ": " << r.err);
        CHECK(r.exit_code == 2);
        CHECK(contains(r.err,
                       "run 0 (host), record 0: worker 1000000000 is not one of the run's "
                       "2 workers (0 to 1)"));
    }
    fs::remove_all(dir);
}

TEST_CASE("report refuses an unknown schema version and impossible sizes, naming the record",
          "[integration][bounds]") {
    const auto dir = fresh_temp_dir("crafted-values");
    const fs::path out = small_results(dir);
    const auto newer =
        run_command(xferlab() + " report " +
                    quoted(crafted(out, "newer.json", [](json& j) { j["schema_version"] = 999; })));
    CHECK(newer.exit_code == 2);
    CHECK(contains(newer.err, "it has results schema 999; this xferlab reads schema 1"));
    const auto negative =
        run_command(xferlab() + " report " + quoted(crafted(out, "negative.json", [](json& j) {
                        j["runs"][0]["records"][1]["size_bytes"] = -1;
                    })));
    CHECK(negative.exit_code == 2);
    CHECK(contains(negative.err, "run 0: record 1: size_bytes is -1: it cannot be negative"));
    CHECK(negative.out.empty());
    fs::remove_all(dir);
}

TEST_CASE("report refuses a results.sqlite made impossible by one UPDATE",
          "[integration][bounds]") {
    const auto dir = fresh_temp_dir("crafted-sqlite");
    const fs::path out = small_results(dir);
    const fs::path store = out / "results.sqlite";
    REQUIRE(run_command("python3 -c \"import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); "
                        "c.execute('UPDATE copies SET worker = 1000000000'); c.commit()\" " +
                        quoted(store))
                .exit_code == 0);
    const auto r = limited(xferlab() + " report " + quoted(store));
    INFO(r.err);
    CHECK(r.exit_code == 2);
    CHECK(contains(r.err, "worker 1000000000 is not one of the run's 2 workers"));
    fs::remove_all(dir);
}

// Issue 54, item 12 (and item 14's raw json.exception): every crafted file below was read as
// figures, exit 0: duplicated rows made a 1-thread run 8x faster at concurrency 8.0, text in an
// integer column read as 0, worker 2^32 as worker 0, planned_runs 10^18 as -1486618624, and a
// journal joined from two runs' journals rendered two "run 0" rows without a word.

namespace {

// `sql` run on a copy of `store`; the copy.
fs::path edited_store(const fs::path& store, const std::string& name, const std::string& sql) {
    const fs::path copy = store.parent_path().parent_path() / name;
    fs::copy_file(store, copy, fs::copy_options::overwrite_existing);
    REQUIRE(run_command("python3 -c \"import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); "
                        "c.execute(sys.argv[2]); c.commit()\" " +
                        quoted(copy) + " \"" + sql + "\"")
                .exit_code == 0);
    return copy;
}

}  // namespace

TEST_CASE("report refuses duplicated rows, wrong column types and integers beyond their field",
          "[integration][bounds]") {
    const auto dir = fresh_temp_dir("crafted-rows");
    const fs::path out = small_results(dir);
    const fs::path store = out / "results.sqlite";
    struct Case {
        fs::path file;
        std::string refusal;
    };
    const std::vector<Case> cases = {
        {edited_store(store, "dup.sqlite", "INSERT INTO copies SELECT * FROM copies"),
         "dup.sqlite: run 0 (host), record 4: worker 0, repetition 0 again (record 0 is that "
         "copy): each copy is recorded once, so this one is a duplicated row"},
        {edited_store(store, "text.sqlite", "UPDATE copies SET host_end_ns = 'abc'"),
         "text.sqlite: run 0, record 0: host_end_ns holds text ('abc'), where xferlab writes "
         "an integer"},
        {edited_store(store, "blob.sqlite", "UPDATE copies SET size_bytes = X'00'"),
         "blob.sqlite: run 0, record 0: size_bytes holds a blob of 1 bytes, where xferlab "
         "writes an integer"},
        {edited_store(store, "wide.sqlite", "UPDATE copies SET worker = 4294967296"),
         "wide.sqlite: run 0, record 0: worker is 4294967296, more than that field holds (at "
         "most 2147483647)"},
        {edited_store(store, "cell.sqlite", "UPDATE runs SET sweep_point = '{oops'"),
         "cell.sqlite: runs table, row 1: sweep_point is not JSON (parse error at line 1, "
         "column 2"},
        {crafted(out, "dup.json",
                 [](json& j) {
                     auto& records = j["runs"][0]["records"];
                     const json copy = records;
                     for (int k = 1; k < 8; ++k)
                         for (const auto& r : copy) records.push_back(r);
                 }),
         "dup.json is not a readable xferlab results.json: run 0 (host), record 4: worker 0, "
         "repetition 0 again (record 0 is that copy)"},
        {crafted(out, "wide.json",
                 [](json& j) { j["runs"][0]["records"][1]["worker"] = 4294967296; }),
         "wide.json is not a readable xferlab results.json: run 0: record 1: worker is "
         "4294967296, more than that field holds (at most 2147483647)"},
        {crafted(out, "planned.json", [](json& j) { j["planned_runs"] = 1000000000000000000; }),
         "planned.json is not a readable xferlab results.json: planned_runs is "
         "1000000000000000000, more than that field holds (at most 2147483647)"},
    };
    for (const Case& c : cases) {
        const auto r = run_command(xferlab() + " report " + quoted(c.file));
        INFO(c.file << ": " << r.err);
        CHECK(r.exit_code == 2);
        CHECK(contains(r.err, "xferlab: " + c.file.string()));
        CHECK(contains(r.err, c.refusal));
        CHECK_FALSE(contains(r.err, "json.exception"));
        CHECK(r.out.empty());
    }
    fs::remove_all(dir);
}

TEST_CASE("report refuses a journal joined from two runs' journals, naming the lines",
          "[integration][bounds]") {
    const auto dir = fresh_temp_dir("crafted-joined");
    fs::create_directories(dir / "a");
    fs::create_directories(dir / "b");
    const fs::path first = small_results(dir / "a");
    const fs::path second = small_results(dir / "b");
    const fs::path joined = dir / "joined.jsonl";
    std::ofstream(joined) << slurp(first / "journal.jsonl") << slurp(second / "journal.jsonl");
    const auto r = run_command(xferlab() + " report " + quoted(joined));
    INFO(r.err);
    CHECK(r.exit_code == 2);
    CHECK(contains(r.err, "xferlab: " + joined.string() +
                              " holds the runs of more than one plan: line 2 names another "
                              "plan than line 1 (its "));
    CHECK(r.out.empty());
    // One journal whose line was copied: the same plan, run 0 twice.
    std::ofstream(joined) << slurp(first / "journal.jsonl") << slurp(first / "journal.jsonl");
    const auto twice = run_command(xferlab() + " report " + quoted(joined));
    CHECK(twice.exit_code == 2);
    CHECK(contains(twice.err,
                   "holds the runs of more than one plan: lines 1 and 2 both hold "
                   "run 0"));
    fs::remove_all(dir);
}
