// A crafted or damaged results file cannot make a reader allocate by the numbers it holds, nor
// read impossible values as figures (issue 48, item 3): worker and run indexes are checked
// against the plan, sizes and times that cannot be are errors naming the run and record, and a
// results schema this xferlab does not know is refused, in results.json, results.sqlite and
// journal.jsonl alike. tests/fuzz/fuzz_results_json.cpp and fuzz_results_sqlite.cpp keep it so.
#include <unistd.h>

#include <filesystem>
#include <functional>
#include <string>

#include "results/journal_reader.hpp"
#include "results/machine_facts.hpp"
#include "results/record_store.hpp"
#include "results/results_checks.hpp"
#include "results/serialize.hpp"
#include "results/sqlite_db.hpp"
#include "support/catch.hpp"
#include "support/run_command.hpp"
#include "test_results_fixtures.hpp"

using nlohmann::json;
using namespace xfer;
namespace fs = std::filesystem;

namespace {

// One plan of one host run of two workers, two copies each, as `run` writes it.
Results two_worker_plan() {
    Results plan;
    plan.tool_version = "test";
    plan.planned_runs = 1;
    RunResult run;
    run.position.label = "host";
    run.settings.launcher = "host";
    run.settings.threads.count = 2;
    run.settings.transfer.bytes = 1 << 20;
    run.start_ns = 1000;
    run.end_ns = 9000;
    for (int w = 0; w < 2; ++w)
        for (int rep = 0; rep < 2; ++rep) {
            Record r;
            r.worker = w;
            r.repetition = rep;
            r.bytes = 1 << 20;
            r.host_start_ns = 2000 + 1000 * rep;
            r.host_end_ns = 2500 + 1000 * rep;
            run.records.push_back(r);
        }
    plan.runs.push_back(run);
    return plan;
}

// What results_from_json says of the plan's JSON after `edit`, or "" when it reads it.
std::string json_refusal(const std::function<void(json&)>& edit) {
    json j = two_worker_plan();
    edit(j);
    try {
        (void)results_from_json(json::parse(j.dump()));  // as the file's text would parse
    } catch (const std::exception& e) {
        return e.what();
    }
    return "";
}

// The plan in a results.sqlite, `sql` run on it, then read back: what the reader says, or "".
std::string sqlite_refusal(const std::string& sql) {
    const fs::path dir = test::fresh_temp_dir("bounds-store");
    const std::string path = (dir / "results.sqlite").string();
    const Results plan = two_worker_plan();
    {
        RecordStore store(path);
        store.write_plan(plan);
        store.add_run(plan.runs.front());
        store.end_plan();
    }
    SqliteDb(path, false).exec(sql);
    std::string why;
    try {
        (void)read_record_store(path);
    } catch (const std::exception& e) {
        why = e.what();
    }
    fs::remove_all(dir);
    return why;
}

}  // namespace

TEST_CASE("results.json: a worker index beyond the run's threads is refused, naming the record",
          "[results][bounds]") {
    CHECK(json_refusal([](json&) {}).empty());
    CHECK(json_refusal([](json& j) {
              for (auto& r : j["runs"][0]["records"]) r["worker"] = 1000000000;
          }) ==
          "run 0 (host), record 0: worker 1000000000 is not one of the run's 2 workers "
          "(0 to 1)");
    CHECK(json_refusal([](json& j) { j["runs"][0]["records"][3]["worker"] = -1; }) ==
          "run 0 (host), record 3: worker -1 is not one of the run's 2 workers (0 to 1)");
    // The run's settings and position say it (its own keys "threads", "index" repeat them).
    CHECK_THAT(
        json_refusal([](json& j) { j["runs"][0]["settings"]["threads"]["count"] = 1000000000; }),
        Catch::StartsWith("run 0 (host): threads 1000000000 is not a thread count"));
    CHECK_THAT(json_refusal([](json& j) { j["runs"][0]["settings"]["index"] = 5; }),
               Catch::Contains("its index 5 is not a run of a plan of 1 runs"));
    CHECK_THAT(json_refusal([](json& j) { j["runs"][0]["records"][1]["run"] = 7; }),
               Catch::Contains("record 1: run 7 is not the run that holds it"));
}

TEST_CASE("results.json: negative sizes and times are errors naming the record",
          "[results][bounds]") {
    CHECK(json_refusal([](json& j) { j["runs"][0]["records"][2]["size_bytes"] = -1; }) ==
          "run 0: record 2: size_bytes is -1: it cannot be negative");
    CHECK_THAT(json_refusal([](json& j) { j["runs"][0]["settings"]["transfer"]["bytes"] = -4096; }),
               Catch::Contains("transfer.bytes is -4096: it cannot be negative"));
    // Read back as 2^64-1 they would render as a 16 EiB stack.
    CHECK_THAT(
        json_refusal([](json& j) { j["runs"][0]["settings"]["threads"]["stack_size"] = -65536; }),
        Catch::Contains("threads.stack_size is -65536: it cannot be negative"));
    CHECK_THAT(
        json_refusal([](json& j) { j["runs"][0]["settings"]["threads"]["guard_size"] = -4096; }),
        Catch::Contains("threads.guard_size is -4096: it cannot be negative"));
    CHECK_THAT(json_refusal([](json& j) { j["runs"][0]["records"][0]["host_end_ns"] = 5; }),
               Catch::Contains("record 0: host_start_ns 2000 and host_end_ns 5 are no span"));
    CHECK_THAT(json_refusal([](json& j) { j["runs"][0]["records"][0]["device_end_ns"] = -7; }),
               Catch::Contains("record 0: device_start_ns -1 or device_end_ns -7 is negative"));
    CHECK_THAT(json_refusal([](json& j) { j["runs"][0]["records"][0]["size_bytes"] = 1e300; }),
               Catch::StartsWith("/runs/0/records/0/size_bytes is 1e+300"));
}

TEST_CASE("results.json: a float where xferlab writes an integer is refused before it is read",
          "[results][bounds]") {
    // 4.09e11 read into an int is undefined behaviour in the JSON library (the results_json
    // fuzzer's find); 1.5 would be read as 1 without a word.
    CHECK(json_refusal([](json& j) {
              j["runs"][0]["thread_infos"] = json::array({json{{"tid", 4.09e11}}});
          }) == "/runs/0/thread_infos/0/tid is 409000000000.0, where xferlab writes an integer");
    CHECK(json_refusal([](json& j) { j["runs"][0]["records"][1]["worker"] = 1.5; }) ==
          "/runs/0/records/1/worker is 1.5, where xferlab writes an integer");
    CHECK(json_refusal([](json& j) { j["runs"][0]["settings"]["threads"]["count"] = 2.0; }) ==
          "/runs/0/settings/threads/count is 2.0, where xferlab writes an integer");
    // Floats xferlab writes: the host's activity, and what `report` computes again or keeps
    // as the user wrote it (analysis, trial groups, the scenario, a payload's params).
    CHECK(json_refusal([](json& j) {
              j["runs"][0]["host_activity"] =
                  json{{"span", "run"},         {"window_ns", 10},  {"cpus", 2},
                       {"busy_cpus", 1.5},      {"own_cpus", 1.25}, {"others_cpus", 0.25},
                       {"steal_fraction", 0.01}};
              j["runs"][0]["analysis"] =
                  json{{"aggregate_Bps", 5.5e10}, {"workers", {{{"share", 0.5}}}}};
              j["trial_groups"] = json::array({json{{"median_Bps", 5.5e10}}});
              j["scenario"] = json{{"run", {{{"params", {{"work", 2.5}}}}}}};
              j["runs"][0]["settings"]["params"] = json{{"switch_interval", 0.005}};
          }).empty());
    CHECK_THAT(json_refusal([](json& j) {
                   j["runs"][0]["analysis"] = json{{"window_s", 1e300}};
               }),
               Catch::StartsWith("/runs/0/analysis/window_s is 1e+300: no value"));
}

TEST_CASE("results.json: a schema version this xferlab does not know is refused",
          "[results][bounds]") {
    CHECK_THAT(json_refusal([](json& j) { j["schema_version"] = 999; }),
               Catch::StartsWith("it has results schema 999; this xferlab reads schema 1"));
    CHECK_THAT(json_refusal([](json& j) { j["planned_runs"] = 1000000000; }),
               Catch::Contains("planned_runs 1000000000 is not the size of a plan"));
}

TEST_CASE("results.sqlite: one UPDATE that makes the file impossible is refused by the reader",
          "[results][bounds]") {
    CHECK(sqlite_refusal("SELECT 1").empty());
    CHECK_THAT(sqlite_refusal("UPDATE copies SET worker = 1000000000"),
               Catch::EndsWith("results.sqlite: run 0 (host), record 0: worker 1000000000 is "
                               "not one of the run's 2 workers (0 to 1)"));
    CHECK_THAT(sqlite_refusal("UPDATE copies SET size_bytes = -1 WHERE rowid = 2"),
               Catch::Contains("run 0, record 1: size_bytes -1 is negative"));
    CHECK_THAT(sqlite_refusal("UPDATE runs SET settings = "
                              "json_set(settings, '$.threads.count', 1000000000)"),
               Catch::Contains("threads 1000000000 is not a thread count"));
    CHECK_THAT(sqlite_refusal("UPDATE meta SET value = '999' WHERE key = 'results_schema_version'"),
               Catch::Contains("it has results schema 999"));
    CHECK_THAT(sqlite_refusal("UPDATE meta SET value = '999' WHERE key = 'schema_version'"),
               Catch::Contains("has results.sqlite schema 999"));
}

TEST_CASE("journal.jsonl: a line no plan could hold is left out and named, the others read",
          "[results][bounds]") {
    Results plan = two_worker_plan();
    plan.runs.push_back(plan.runs.front());
    plan.runs[1].position.index = 1;
    for (auto& r : plan.runs[1].records) r.run = 1;
    plan.planned_runs = 2;
    json bad = journal_line(plan, plan.runs[1]);
    bad["records"][0]["worker"] = 1000000000;
    json newer = journal_line(plan, plan.runs[1]);
    newer["plan"]["schema_version"] = 999;
    json floating = journal_line(plan, plan.runs[1]);
    floating["records"][1]["worker"] = 4.09e11;
    const std::string text = journal_line(plan, plan.runs[0]).dump() + "\n" + bad.dump() + "\n" +
                             newer.dump() + "\n" + floating.dump() + "\n";
    const JournalContents c = read_journal(text);
    REQUIRE(c.results.runs.size() == 1);
    REQUIRE(c.gaps.size() == 3);
    CHECK_THAT(c.gaps[0].why, Catch::Contains("record 0: worker 1000000000 is not one of"));
    CHECK_THAT(c.gaps[1].why, Catch::Contains("its plan has results schema 999"));
    CHECK_THAT(
        c.gaps[2].why,
        Catch::Contains("/records/1/worker is 409000000000.0, where xferlab writes an integer"));
}

// Issue 54, item 12: rows duplicated, integers cut to their low bits, text read as 0, two
// plans' journals joined: each was read as figures (a 1-thread run 8x faster at concurrency
// 8.0, worker 2^32 as worker 0, planned_runs 10^18 as -1486618624); each is now refused where
// it is, the file named by the caller (results.sqlite's reader names it itself).

TEST_CASE("results.json: a duplicated record or run is refused, naming both", "[results][bounds]") {
    CHECK(json_refusal([](json& j) {
              auto& records = j["runs"][0]["records"];
              records.push_back(records[1]);
          }) ==
          "run 0 (host), record 4: worker 0, repetition 1 again (record 1 is that copy): "
          "each copy is recorded once, so this one is a duplicated row");
    // Eight copies of every record: what made a 1-thread run 8x faster.
    CHECK_THAT(json_refusal([](json& j) {
                   json records = j["runs"][0]["records"];
                   for (int k = 1; k < 8; ++k)
                       for (const auto& r : records) j["runs"][0]["records"].push_back(r);
               }),
               Catch::Contains("record 4: worker 0, repetition 0 again (record 0 is that copy)"));
    CHECK(json_refusal([](json& j) { j["runs"].push_back(j["runs"][0]); }) ==
          "it holds run 0 twice (its runs number 1 and 2 in file order): a plan has each run "
          "once, so these are two plans' runs joined, or a duplicated row");
}

TEST_CASE("results.json: an integer beyond its field is refused, not cut to its low bits",
          "[results][bounds]") {
    // Read before: worker 0, and planned_runs 0 ("unknown") and -1486618624.
    CHECK(json_refusal([](json& j) { j["runs"][0]["records"][0]["worker"] = 4294967296; }) ==
          "run 0: record 0: worker is 4294967296, more than that field holds (at most "
          "2147483647)");
    CHECK(json_refusal([](json& j) { j["planned_runs"] = 1099511627776; }) ==
          "planned_runs is 1099511627776, more than that field holds (at most 2147483647)");
    CHECK(json_refusal([](json& j) { j["planned_runs"] = 1000000000000000000; }) ==
          "planned_runs is 1000000000000000000, more than that field holds (at most "
          "2147483647)");
    CHECK(json_refusal([](json& j) { j["runs"][0]["records"][2]["correlation_id"] = -1; }) ==
          "run 0: record 2: correlation_id is -1, less than that field holds (at least 0)");
    CHECK(json_refusal([](json& j) { j["runs"][0]["records"][0]["repetition"] = "abc"; }) ==
          "run 0: record 0: repetition is \"abc\", where xferlab writes an integer");
    CHECK(json_refusal([](json& j) {
              j["runs"][0]["thread_infos"] = json::array({json(testing::full_thread_info())});
              j["runs"][0]["thread_infos"][0]["tid"] = 4294967297;
          }) ==
          "run 0: thread_info 0: tid is 4294967297, more than that field holds (at most "
          "2147483647)");
}

TEST_CASE(
    "results.sqlite: text, blobs, floats and out-of-range integers are refused, naming "
    "the file, run, record and column",
    "[results][bounds]") {
    CHECK_THAT(sqlite_refusal("UPDATE copies SET host_end_ns = 'abc' WHERE rowid = 1"),
               Catch::EndsWith("results.sqlite: run 0, record 0: host_end_ns holds text "
                               "('abc'), where xferlab writes an integer"));
    CHECK_THAT(sqlite_refusal("UPDATE copies SET worker = X'0102' WHERE rowid = 2"),
               Catch::EndsWith("results.sqlite: run 0, record 1: worker holds a blob of 2 "
                               "bytes, where xferlab writes an integer"));
    CHECK_THAT(sqlite_refusal("UPDATE copies SET cpu = 1.5 WHERE rowid = 3"),
               Catch::EndsWith("run 0, record 2: cpu holds a float (1.500000), where xferlab "
                               "writes an integer"));
    CHECK_THAT(sqlite_refusal("UPDATE copies SET worker = 4294967296 WHERE rowid = 1"),
               Catch::EndsWith("results.sqlite: run 0, record 0: worker is 4294967296, more "
                               "than that field holds (at most 2147483647)"));
    CHECK_THAT(sqlite_refusal("UPDATE runs SET label = X'00'"),
               Catch::EndsWith("results.sqlite: runs table, row 1: label holds a blob of 1 "
                               "bytes, where xferlab writes text"));
    CHECK_THAT(sqlite_refusal("UPDATE meta SET value = '1000000000000000000' "
                              "WHERE key = 'planned_runs'"),
               Catch::EndsWith("results.sqlite: its meta table: planned_runs is "
                               "1000000000000000000, more than that field holds (at most "
                               "2147483647)"));
    CHECK_THAT(sqlite_refusal("INSERT INTO copies SELECT * FROM copies"),
               Catch::EndsWith("results.sqlite: run 0 (host), record 4: worker 0, repetition "
                               "0 again (record 0 is that copy): each copy is recorded once, "
                               "so this one is a duplicated row"));
}

TEST_CASE("results.sqlite: a cell that is not JSON names the file, the row and the column",
          "[results][bounds]") {
    // Before: "[json.exception.parse_error.101] parse error at line 1, column 5: ..." alone.
    const std::string why = sqlite_refusal("UPDATE runs SET settings = '{bad'");
    CHECK_THAT(why, Catch::EndsWith("results.sqlite: runs table, row 1: settings is not JSON "
                                    "(parse error at line 1, column 2: syntax error while "
                                    "parsing object key - invalid literal; last read: '{b'; "
                                    "expected string literal)"));
    CHECK_THAT(why, !Catch::Contains("json.exception"));
    CHECK_THAT(sqlite_refusal("UPDATE meta SET value = '{bad' WHERE key = 'host'"),
               Catch::Contains("results.sqlite: its meta table's host: value is not JSON"));
}

TEST_CASE("journal.jsonl: two plans' lines, or one run twice, are refused naming the lines",
          "[results][bounds]") {
    Results plan = two_worker_plan();
    plan.scenario = json{{"name", "a"}};
    Results other = plan;
    other.scenario = json{{"name", "b"}};
    const RunResult& run = plan.runs.front();
    // Two journals of one run each, joined: two "run 0" rows before.
    JournalContents joined = read_journal(journal_line(plan, run).dump() + "\n" +
                                          journal_line(other, run).dump() + "\n");
    CHECK(joined.mixed ==
          "holds the runs of more than one plan: line 2 names another plan than line 1 (its "
          "scenario differs)");
    // The same plan's run twice (a line copied, or the same scenario run twice into one file).
    JournalContents twice =
        read_journal(journal_line(plan, run).dump() + "\n" + journal_line(plan, run).dump() + "\n");
    CHECK(twice.mixed == "holds the runs of more than one plan: lines 1 and 2 both hold run 0");
    // The host's Python, described in full once a run started it, is no other plan.
    Results later = plan;
    later.host = host_from_json(json{{"python", {{"started", true}}}});
    plan.host = host_from_json(json{{"python", {{"started", false}}}});
    RunResult second = run;
    second.position.index = 1;
    for (auto& r : second.records) r.run = 1;
    const JournalContents one = read_journal(journal_line(plan, run).dump() + "\n" +
                                             journal_line(later, second).dump() + "\n");
    CHECK(one.mixed.empty());
    CHECK(one.results.runs.size() == 2);
    CHECK(one.run_lines == std::vector<size_t>{1, 2});
}
