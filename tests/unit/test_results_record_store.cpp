// results/record_store.cpp: results.sqlite holds every field of a plan's Results, and
// read_record_store gives them back exactly; a file that is not one is refused by name.
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>

#include "results/record_store.hpp"
#include "results/serialize.hpp"
#include "results/sqlite_db.hpp"
#include "support/catch.hpp"
#include "test_results_fixtures.hpp"

using nlohmann::json;
using namespace xfer;
using xfer::testing::full_record;
using xfer::testing::full_run;
using xfer::testing::full_thread_info;
namespace fs = std::filesystem;

namespace {

fs::path temp_file(const std::string& name) {
    const fs::path dir = fs::temp_directory_path() / ("xfer-store-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    fs::remove(dir / name);
    return dir / name;
}

Results plan_with_two_runs() {
    Results plan;
    plan.tool_version = "9.9";
    plan.git_describe = "abc-dirty";
    plan.host = host_from_json(json{{"hostname", "node07"}, {"cores", 2}});
    plan.devices = devices_from_json(json{{"host", "memcpy"}});
    plan.scenario = json{{"name", "s"}, {"run", json::array({json{{"launcher", "python"}}})}};
    plan.planned_runs = 3;
    plan.started_wall_ns = 1'796'000'000'000'000'000;
    plan.sizing = json{{"bytes", 4096}};
    plan.notes = {"journal.jsonl: line 2 is unreadable"};
    // Run 0: every field set (test_results_fixtures.hpp), as the record store must keep it.
    RunResult a = full_run();
    a.position.index = 0;
    // Its settings name no trial (results from before trials), its trial column does.
    a.position.trials_recorded = false;
    a.settings.threads.count = 8;  // full_record's worker 7 is one of them: the reader checks it
    for (auto& r : a.records) r.run = 0;
    RunResult b;
    b.position.index = 1;
    b.position.label = "python gil=release";
    b.settings.launcher = "python";
    b.position.sweep_point = {{"threads.count", "2"}};
    b.position.scaling_key = "python";
    // Its settings name its trial too (as `run` writes them): schema 3 stores read it there.
    b.position.trial = 2;
    b.position.base_label = "python";
    b.payload = PayloadRecord{"copy.py", "/p/copy.py", "/p", "ab12"};
    b.records = {full_record()};
    b.records[0].run = 1;
    b.settings.threads.count = 8;
    b.helper_threads = {
        HelperThread{full_thread_info(), {{10, 20}, {30, 45}}, 2, {3, 4096, 9, 1, 5}}};
    b.status = RunStatus::failed;
    b.errors = {"verification failed", "second"};
    b.start_ns = 100;
    b.end_ns = 200;
    b.records_file = kRecordStoreFile;
    plan.runs = {a, b};
    return plan;
}

Results stored_and_read(const Results& plan, const fs::path& path) {
    {
        RecordStore store(path.string());
        store.write_plan(plan);
        for (const auto& run : plan.runs) store.add_run(run);
    }
    return read_record_store(path.string());
}

std::string refusal(const fs::path& path) {
    try {
        read_record_store(path.string());
    } catch (const std::exception& e) {
        return e.what();
    }
    return "(read without an error)";
}

}  // namespace

TEST_CASE("results.sqlite gives back every field of the plan, its runs and records",
          "[results][store]") {
    const Results plan = plan_with_two_runs();
    Results back = stored_and_read(plan, temp_file("round.sqlite"));
    // The JSON form is the complete, exact comparison of every field (serialize.cpp): run 1
    // says records_file as results.json does, and its records are loaded all the same.
    CHECK(json(back).dump() == json(plan).dump());
    REQUIRE(back.runs.size() == 2);
    CHECK(back.runs[1].records_file == kRecordStoreFile);
    // Without records_file on either side, the JSON compares run 1's records too.
    Results plan_inline = plan;
    for (Results* r : {&plan_inline, &back})
        for (auto& run : r->runs) run.records_file.clear();
    CHECK(json(back).dump() == json(plan_inline).dump());
    CHECK(back.runs[0].position.trial == 3);
    CHECK(back.runs[1].position.base_label == "python");
    CHECK(back.notes == plan.notes);
    CHECK(back.runs[1].records.at(0).device_timing == DeviceTiming::cupti);
    CHECK(back.runs[0].records.at(1).device_start_ns == -1);  // NULL in the store
    REQUIRE(back.runs[1].helper_threads.size() == 1);
    CHECK(back.runs[1].helper_threads[0].thread.tid == full_thread_info().tid);
    CHECK(back.runs[1].helper_threads[0].busy ==
          std::vector<std::array<int64_t, 2>>{{10, 20}, {30, 45}});
    CHECK(back.runs[1].helper_threads[0].busy_dropped == 2);
    CHECK(back.runs[1].helper_threads[0].work.chunks == 3);
    CHECK(back.runs[1].helper_threads[0].work.copied_bytes == 4096);
    CHECK(back.runs[1].helper_threads[0].work.copy_ns == 9);
    CHECK(back.runs[1].helper_threads[0].work.start_ns == 1);
    CHECK(back.runs[1].helper_threads[0].work.wait_ns == 5);
    CHECK(back.runs[0].threads_info.at(1).gil_held == std::nullopt);
    REQUIRE(back.runs[0].host_activity);
    CHECK(back.runs[0].host_activity->own_cpus == 2.125);
    CHECK_FALSE(back.runs[1].host_activity);  // none recorded: NULL, read as none
}

TEST_CASE("load_stored_records fills only the runs results.json left to the store",
          "[results][store]") {
    const fs::path path = temp_file("load.sqlite");
    const Results plan = stored_and_read(plan_with_two_runs(), path);
    Results from_json = json::parse(json(plan_with_two_runs()).dump()).get<Results>();
    CHECK(from_json.runs[0].records.size() == 4);  // inline
    CHECK(from_json.runs[1].records.empty());      // "records_file": "results.sqlite"
    load_stored_records(path.string(), from_json);
    REQUIRE(from_json.runs[1].records.size() == 1);
    CHECK(from_json.runs[1].records[0].correlation == 4'000'000'001u);
    // A results.json naming a run the store lacks is refused by run number.
    from_json.runs[1].position.index = 5;
    try {
        load_stored_records(path.string(), from_json);
        FAIL("no error");
    } catch (const std::exception& e) {
        CHECK(std::string(e.what()).find("does not hold run 5") != std::string::npos);
    }
}

TEST_CASE("a run past the threshold is written to results.json without its records",
          "[results][store]") {
    RunResult r = plan_with_two_runs().runs[1];
    const json j = r;
    CHECK_FALSE(j.contains("records"));
    CHECK(j.at("records_file") == "results.sqlite");
    CHECK(j.at("record_count") == 1);
}

TEST_CASE("a file that is not an xferlab results.sqlite is refused by what it is",
          "[results][store]") {
    const fs::path text = temp_file("text.sqlite");
    std::ofstream(text) << "not a database at all, but long enough to have a header....\n";
    CHECK(refusal(text).find("is not a readable SQLite database (") != std::string::npos);
    CHECK(refusal(text).find("file is not a database") != std::string::npos);

    const fs::path foreign = temp_file("foreign.sqlite");
    SqliteDb(foreign.string(), false).exec("CREATE TABLE t(x); INSERT INTO t VALUES(1);");
    CHECK(refusal(foreign) ==
          foreign.string() +
              " is an SQLite database but not an xferlab results.sqlite (it has no meta table)");

    const fs::path newer = temp_file("newer.sqlite");
    stored_and_read(plan_with_two_runs(), newer);
    const std::string next = std::to_string(kRecordStoreSchema + 1);
    SqliteDb(newer.string(), false)
        .exec("UPDATE meta SET value='" + next + "' WHERE key='schema_version'");
    CHECK(refusal(newer) == newer.string() + " has results.sqlite schema " + next +
                                "; this xferlab reads schemas 1 to " +
                                std::to_string(kRecordStoreSchema));
}

TEST_CASE("a schema 2 results.sqlite (before host activity) is read, without it",
          "[results][store]") {
    const fs::path path = temp_file("schema2.sqlite");
    const Results plan = plan_with_two_runs();
    stored_and_read(plan, path);
    SqliteDb(path.string(), false)
        .exec(
            "ALTER TABLE runs DROP COLUMN host_activity; "
            "UPDATE meta SET value='2' WHERE key='schema_version'");
    const Results back = read_record_store(path.string());
    REQUIRE(back.runs.size() == 2);
    CHECK_FALSE(back.runs[0].host_activity);
    CHECK(back.runs[0].copy_sources == plan.runs[0].copy_sources);  // schema 2's own column
    CHECK(back.runs[0].records.size() == plan.runs[0].records.size());
}

TEST_CASE("a watched copy's kinds are columns of copies, and a name CUPTI does not give is "
          "refused",
          "[results][store]") {
    const fs::path path = temp_file("watched-columns.sqlite");
    stored_and_read(plan_with_two_runs(), path);
    {
        SqliteDb db(path.string(), true);
        SqliteStatement s(db,
                          "SELECT copy_kind, src_kind, dst_kind, host_node FROM copies WHERE run "
                          "= 0 ORDER BY rowid");
        REQUIRE(s.step());
        CHECK(s.is_null(0));  // xferlab's own copy: no kinds, no sampled node
        CHECK(s.is_null(3));
        for (int row = 1; row < 4; ++row) REQUIRE(s.step());
        CHECK(s.text(0) == "DtoH");
        CHECK(s.text(1) == "device");
        CHECK(s.text(2) == "pinned");
        CHECK(s.integer(3) == 1);
    }
    SqliteDb(path.string(), false)
        .exec("UPDATE copies SET dst_kind = 'swap' WHERE copy_kind = 'DtoH'");
    std::string why;
    try {
        read_record_store(path.string());
    } catch (const std::exception& e) {
        why = e.what();
    }
    CHECK(why.find("run 0, record 3: dst_kind \"swap\" is not a kind CUPTI names") !=
          std::string::npos);
}

TEST_CASE("a schema 5 results.sqlite (before a watched copy's columns) is read, without them",
          "[results][store]") {
    const fs::path path = temp_file("schema5.sqlite");
    Results plan = plan_with_two_runs();
    plan.runs[0].records.pop_back();  // the watched copy: schema 5 had no column for it
    plan.runs[0].records[2].gap = GapProbe{};  // nor for the gap (schema 7)
    stored_and_read(plan, path);
    SqliteDb(path.string(), false)
        .exec(
            "ALTER TABLE copies DROP COLUMN copy_kind; ALTER TABLE copies DROP COLUMN src_kind; "
            "ALTER TABLE copies DROP COLUMN dst_kind; ALTER TABLE copies DROP COLUMN host_node; "
            "ALTER TABLE copies DROP COLUMN gap; "
            "UPDATE meta SET value='5' WHERE key='schema_version'");
    const Results back = read_record_store(path.string());
    REQUIRE(back.runs[0].records.size() == 3);
    CHECK(json(back.runs[0]).dump() == json(plan.runs[0]).dump());
}

TEST_CASE("a schema 6 results.sqlite (before the copies' gap) is read, without it",
          "[results][store]") {
    const fs::path path = temp_file("schema6.sqlite");
    const Results plan = plan_with_two_runs();
    REQUIRE_FALSE(plan.runs[0].records.at(2).gap.empty());  // the fixture's timed block has one
    stored_and_read(plan, path);
    SqliteDb(path.string(), false)
        .exec(
            "ALTER TABLE copies DROP COLUMN gap; "
            "UPDATE meta SET value='6' WHERE key='schema_version'");
    const Results back = read_record_store(path.string());
    REQUIRE(back.runs[0].records.size() == 4);
    CHECK(back.runs[0].records[2].gap.empty());
    CHECK(back.runs[0].records[2].source == 2);  // the timed block's columns still read
}

TEST_CASE("a copy's gap that is not one is refused, naming its run and record",
          "[results][store]") {
    const fs::path path = temp_file("bad-gap.sqlite");
    stored_and_read(plan_with_two_runs(), path);
    SqliteDb(path.string(), false)
        .exec("UPDATE copies SET gap = '{\"exit_ns\": 5}' WHERE run = 0 AND gap IS NOT NULL");
    CHECK(refusal(path) == path.string() + ": run 0, record 2: gap: unknown key 'exit_ns'");
}

TEST_CASE("trial and base_label are columns of runs, for SQL", "[results][store]") {
    const fs::path path = temp_file("trial-columns.sqlite");
    stored_and_read(plan_with_two_runs(), path);
    SqliteDb db(path.string(), true);
    SqliteStatement s(db, "SELECT run, trial, base_label FROM runs ORDER BY run");
    REQUIRE(s.step());
    CHECK(s.integer(1) == 3);
    CHECK(s.text(2) == "python gil=release");
    REQUIRE(s.step());
    CHECK(s.integer(1) == 2);
    CHECK(s.text(2) == "python");
}

TEST_CASE(
    "a schema 3 results.sqlite (before the trial columns) reads trial and base_label from "
    "each run's settings",
    "[results][store]") {
    const fs::path path = temp_file("schema3.sqlite");
    stored_and_read(plan_with_two_runs(), path);
    SqliteDb(path.string(), false)
        .exec(
            "ALTER TABLE runs DROP COLUMN trial; ALTER TABLE runs DROP COLUMN base_label; "
            "DELETE FROM meta WHERE key = 'notes'; "
            "UPDATE meta SET value='3' WHERE key='schema_version'");
    const Results back = read_record_store(path.string());
    REQUIRE(back.runs.size() == 2);
    CHECK(back.runs[1].position.trial == 2);  // from settings
    CHECK(back.runs[1].position.base_label == "python");
    // Settings without them (results from before trials): each run its only trial.
    CHECK(back.runs[0].position.trial == 1);
    CHECK(back.runs[0].position.base_label.empty());
    CHECK(back.notes.empty());
    CHECK(back.runs[0].host_activity);  // schema 3's own column
}
