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
