// results.sqlite end to end: `run` writes it beside results.json; past output.inline_records a
// run's records live only there, and `report` gives the same analysis from results.json, the
// journal or results.sqlite as the run computed in memory; a file that is not one is refused.
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "results/sqlite_db.hpp"
#include "support/catch.hpp"
#include "support/run_command.hpp"
#include "support/text.hpp"

namespace fs = std::filesystem;
using namespace xfer::test;
using nlohmann::json;

namespace {

// `plan` and `config` written into `dir`, then `xferlab run` on them into dir/out with `flags`.
CommandResult run_plan(const fs::path& dir, const std::string& plan, const std::string& config,
                       const std::string& flags) {
    std::ofstream(dir / "plan.toml") << plan;
    std::ofstream(dir / "config.toml") << config;
    return run_command(xferlab() + " run '" + (dir / "plan.toml").string() + "' --config '" +
                       (dir / "config.toml").string() + "' " + flags + " --out '" +
                       (dir / "out").string() + "'");
}

// Two runs of 12 copies each (2 workers x 6, one a warm-up); the config keeps at most
// `inline_records` inline and adds `more_config` to [output]. `flags` replace --quiet.
CommandResult run_small_plan(const fs::path& dir, int inline_records,
                             const std::string& more_config = "",
                             const std::string& flags = "--quiet") {
    return run_plan(
        dir,
        "[scenario]\nname = \"store\"\nbackend = \"host\"\n"
        "[transfer]\nbytes = \"4KiB\"\nrepetitions = 5\nwarmup = 1\n"
        "[threads]\ncount = 2\n[[run]]\nlauncher = \"host\"\n"
        "[[run]]\nlauncher = \"openmp\"\n",
        "[output]\ninline_records = " + std::to_string(inline_records) + "\n" + more_config, flags);
}

// What `report FILE --format json` says, parsed; null (with the reason shown) when it fails.
json report_json(const fs::path& file) {
    auto r = run_command(xferlab() + " report '" + file.string() + "' --format json");
    INFO(r.err);
    CHECK(r.exit_code == 0);
    return r.exit_code == 0 ? json::parse(r.out) : json();
}

// What `report FILE --format csv` writes (the CSV `run` writes as copies.csv).
std::string report_csv(const fs::path& file) {
    auto r = run_command(xferlab() + " report '" + file.string() + "' --format csv");
    INFO(r.err);
    CHECK(r.exit_code == 0);
    return r.out;
}

// Each run's analysis and the summary: what a report computes from the records.
json analysis_of(const json& results) {
    json a = json::array();
    for (const auto& run : results.at("runs")) a.push_back(run.at("analysis"));
    return json{{"runs", a}, {"summary", results.at("summary")}};
}

}  // namespace

TEST_CASE(
    "past output.inline_records, results.json and the journal leave records to "
    "results.sqlite, and report gives the run's own analysis from each",
    "[integration][store]") {
    const fs::path dir = fresh_temp_dir("store");
    const auto run = run_small_plan(dir, 10);
    INFO(run.err);
    REQUIRE(run.exit_code == 0);
    const fs::path out = dir / "out";
    const json written = json::parse(slurp(out / "results.json"));
    for (const auto& r : written.at("runs")) {
        CHECK_FALSE(r.contains("records"));
        CHECK(r.at("records_file") == "results.sqlite");
        CHECK(r.at("record_count") == 12);
    }
    CHECK_FALSE(contains(slurp(out / "journal.jsonl"), "\"host_start_ns\""));
    const json in_memory = analysis_of(written);
    CHECK(in_memory["runs"][0]["copies"] == 10);  // warm-up copies excluded
    CHECK(analysis_of(report_json(out / "results.json")) == in_memory);
    CHECK(analysis_of(report_json(out / "results.sqlite")) == in_memory);
    // A journal never says whether the plan finished: its summary adds that; the runs agree.
    CHECK(analysis_of(report_json(out / "journal.jsonl"))["runs"] == in_memory["runs"]);

    // The finished file is one file: reading it left no SQLite -wal or -shm beside it.
    CHECK_FALSE(fs::exists(out / "results.sqlite-wal"));
    CHECK_FALSE(fs::exists(out / "results.sqlite-shm"));

    // Without results.sqlite, results.json says where its records went.
    fs::rename(out / "results.sqlite", dir / "elsewhere.sqlite");
    auto missing = run_command(xferlab() + " report '" + (out / "results.json").string() + "'");
    CHECK(missing.exit_code == 2);
    CHECK(contains(missing.err, "results.json keeps the records of its larger runs in " +
                                    (out / "results.sqlite").string() + ", which is missing"));
    fs::remove_all(dir);
}

TEST_CASE("within output.inline_records the records stay in results.json too",
          "[integration][store]") {
    const fs::path dir = fresh_temp_dir("store-inline");
    REQUIRE(run_small_plan(dir, 12).exit_code == 0);
    const json written = json::parse(slurp(dir / "out" / "results.json"));
    CHECK(written.at("runs").at(0).at("records").size() == 12);
    CHECK_FALSE(written.at("runs").at(0).contains("records_file"));
    CHECK(analysis_of(report_json(dir / "out" / "results.sqlite")) == analysis_of(written));
    fs::remove_all(dir);
}

TEST_CASE("report refuses a results.sqlite that is damaged or not xferlab's, exit 2",
          "[integration][store]") {
    const fs::path dir = fresh_temp_dir("store-bad");
    std::ofstream(dir / "text.sqlite") << "{\"schema_version\": 1}\n";
    auto text = run_command(xferlab() + " report '" + (dir / "text.sqlite").string() + "'");
    CHECK(text.exit_code == 2);
    CHECK(contains(text.err,
                   "text.sqlite is not an SQLite database (it does not start with "
                   "SQLite's header): give the results.json"));

    // SQLite's header, then garbage: what a truncated copy or a disk error leaves.
    std::ofstream(dir / "damaged.sqlite", std::ios::binary)
        << std::string("SQLite format 3\0", 16) << std::string(4000, 'x');
    auto damaged = run_command(xferlab() + " report '" + (dir / "damaged.sqlite").string() + "'");
    CHECK(damaged.exit_code == 2);
    CHECK(contains(damaged.err, "damaged.sqlite is not a readable SQLite database ("));

    xfer::SqliteDb((dir / "other.db").string(), false).exec("CREATE TABLE t(x)");
    auto other = run_command(xferlab() + " report '" + (dir / "other.db").string() + "'");
    CHECK(other.exit_code == 2);
    CHECK(contains(other.err,
                   "other.db is an SQLite database but not an xferlab "
                   "results.sqlite (it has no meta table)"));
    fs::remove_all(dir);
}

TEST_CASE(
    "output.inline_records and output.trace_copies must be whole numbers >= 0: "
    "file:line:column, exit 2",
    "[integration][store]") {
    const fs::path dir = fresh_temp_dir("store-config");
    std::ofstream(dir / "plan.toml") << "[scenario]\nname = \"c\"\nbackend = \"host\"\n"
                                        "[[run]]\nlauncher = \"host\"\n";
    std::ofstream(dir / "bad.toml") << "[output]\ninline_records = -1\ntrace_copies = \"many\"\n";
    auto r = run_command(xferlab() + " run '" + (dir / "plan.toml").string() + "' --config '" +
                         (dir / "bad.toml").string() + "' --quiet --out '" +
                         (dir / "out").string() + "'");
    CHECK(r.exit_code == 2);
    const std::string config = (dir / "bad.toml").string();
    CHECK(contains(r.err,
                   config + ":2:18: error: output.inline_records: expected a whole number >= 0"));
    CHECK(contains(r.err,
                   config + ":3:16: error: output.trace_copies: expected a whole number >= 0"));
    CHECK_FALSE(fs::exists(dir / "out"));
    fs::remove_all(dir);
}

TEST_CASE("output.trace_copies bounds trace.json's copies per run in `run`",
          "[integration][store]") {
    const fs::path dir = fresh_temp_dir("store-trace");
    REQUIRE(run_small_plan(dir, 100, "trace_copies = 5\n").exit_code == 0);
    const json trace = json::parse(slurp(dir / "out" / "trace.json"));
    size_t copies = 0;
    for (const auto& e : trace.at("traceEvents")) copies += e.at("ph") == "X" ? 1 : 0;
    CHECK(copies == 8);  // 4 of each run's 12 (every 3rd)
    CHECK(trace.at("otherData").at("sampled").size() == 2);
    fs::remove_all(dir);
}

TEST_CASE("a folder where results.sqlite would go: nothing runs, exit 2, and the message says why",
          "[integration][store]") {
    // Before issue #28 the plan ran with its records in results.json only and exit 0; #28 made
    // it exit 3 before the first run; since issue 48 the folder is checked before it is taken,
    // and anything but a regular file under a name xferlab writes is refused there.
    const fs::path dir = fresh_temp_dir("store-unwritable");
    fs::create_directories(dir / "out" / "results.sqlite");  // a folder where the file would go
    const auto run = run_small_plan(dir, 10);
    INFO(run.err);
    CHECK(run.exit_code == 2);
    CHECK(contains(run.err, (dir / "out" / "results.sqlite").string() +
                                " is a folder: xferlab writes a regular file of its own there"));
    CHECK_FALSE(fs::exists(dir / "out" / "results.json"));
    CHECK_FALSE(fs::exists(dir / "out" / "journal.jsonl"));
    fs::remove_all(dir);
}

TEST_CASE("run names results.sqlite among the files it wrote", "[integration][store]") {
    const fs::path dir = fresh_temp_dir("store-named");
    std::ofstream(dir / "one.toml") << "[scenario]\nname = \"one\"\nbackend = \"host\"\n"
                                       "[transfer]\nbytes = \"64KiB\"\nrepetitions = 2\n"
                                       "[[run]]\nlauncher = \"host\"\n";
    auto r = run_command(xferlab() + " run '" + (dir / "one.toml").string() + "' --out '" +
                         (dir / "out").string() + "'");
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(fs::exists(dir / "out" / "results.sqlite"));
    CHECK(contains(r.err, "out/ (results.json, copies.csv, runs.csv, trace.json, results.sqlite)"));
    fs::remove_all(dir);
}

TEST_CASE(
    "past output.inline_records, run writes no copies.csv and says where its rows are and "
    "how to get the CSV",
    "[integration][store]") {
    const fs::path dir = fresh_temp_dir("store-no-csv");
    const auto run = run_small_plan(dir, 10, "", "");
    INFO(run.err);
    REQUIRE(run.exit_code == 0);
    const fs::path out = dir / "out";
    CHECK_FALSE(fs::exists(out / "copies.csv"));
    const std::string store = (out / "results.sqlite").string();
    CHECK(contains(run.err, "out/ (results.json, runs.csv, trace.json, results.sqlite)\n"));
    CHECK(contains(run.err,
                   "\nnote: copies.csv was not written: 2 run(s) of more than "
                   "output.inline_records (10) copies keep their 24 records in "
                   "results.sqlite only. To get the CSV: xferlab report " +
                       store + " --format csv > " + (out / "copies.csv").string() +
                       ", or sqlite3 -csv -header " + store + " \"SELECT * FROM copies\"\n"));
    // The command the note gives writes the CSV: a header and one row per copy.
    CHECK(line_count(report_csv(store)) == 25);
    fs::remove_all(dir);
}

TEST_CASE(
    "within output.inline_records copies.csv is written, and report --format csv of "
    "results.sqlite gives the same bytes",
    "[integration][store]") {
    const fs::path dir = fresh_temp_dir("store-csv");
    const auto run = run_small_plan(dir, 12, "", "");
    INFO(run.err);
    REQUIRE(run.exit_code == 0);
    CHECK_FALSE(contains(run.err, "note: copies.csv"));
    const std::string written = slurp(dir / "out" / "copies.csv");
    CHECK(line_count(written) == 25);
    CHECK(report_csv(dir / "out" / "results.sqlite") == written);
    fs::remove_all(dir);
}

TEST_CASE(
    "no copies.csv with the small runs alone when a later run keeps its records in "
    "results.sqlite only",
    "[integration][store]") {
    const fs::path dir = fresh_temp_dir("store-stale-csv");
    // Run 0 (2 copies) is inline; run 1 (30) is not: copies.csv, written once at the plan's
    // end, is left out rather than holding run 0 alone.
    const auto run = run_plan(dir,
                              "[scenario]\nname = \"mixed\"\nbackend = \"host\"\n"
                              "[transfer]\nbytes = \"4KiB\"\nrepetitions = 2\nwarmup = 0\n"
                              "[[run]]\nlauncher = \"host\"\n[[run]]\nlauncher = \"host\"\n"
                              "transfer.repetitions = 30\n",
                              "[output]\ninline_records = 10\n", "");
    INFO(run.err);
    REQUIRE(run.exit_code == 0);
    CHECK_FALSE(fs::exists(dir / "out" / "copies.csv"));
    CHECK(contains(run.err,
                   "note: copies.csv was not written: 1 run(s) of more than "
                   "output.inline_records (10) copies keep their 30 records in "
                   "results.sqlite only."));
    fs::remove_all(dir);
}
