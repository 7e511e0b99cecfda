// The exit-3 message after a write that failed (issue 48, item 5): under file size limits that
// cut the plan at different places, results.sqlite's failure was reported as "cannot rollback -
// no transaction is active" (the rollback's own error, after SQLite had rolled back itself),
// and "On disk: 3 completed run(s)" counted runs in memory, not in any file. Now the first
// error is the one said, and each count is what the test reads back from that file.
#include <filesystem>
#include <fstream>
#include <regex>

#include "results/sqlite_db.hpp"
#include "support/catch.hpp"
#include "support/run_command.hpp"
#include "support/small_scenario.hpp"
#include "support/text.hpp"

namespace fs = std::filesystem;
using namespace xfer::test;

namespace {

// Six runs of two workers, 20 copies each: each adds some KiB to every file.
fs::path six_runs(const fs::path& dir) {
    const fs::path file = dir / "six.toml";
    std::ofstream(file) << "[scenario]\nname = \"six\"\nbackend = \"host\"\n"
                           "[transfer]\nbytes = \"64KiB\"\nrepetitions = 20\nwarmup = 0\n"
                           "[threads]\ncount = 2\n[[run]]\nlauncher = \"host\"\n"
                           "[sweep]\n\"threads.count\" = [1, 2, 1, 2, 1, 2]\n";
    return file;
}

size_t journal_runs(const fs::path& out) { return line_count(slurp(out / "journal.jsonl")); }

size_t stored_runs(const fs::path& out) {
    if (!fs::exists(out / "results.sqlite")) return 0;
    xfer::SqliteDb db((out / "results.sqlite").string(), true);
    xfer::SqliteStatement tables(db, "SELECT count(*) FROM sqlite_master WHERE name = 'runs'");
    tables.step();
    if (tables.integer(0) == 0) return 0;
    xfer::SqliteStatement s(db, "SELECT count(*) FROM runs");
    s.step();
    return size_t(s.integer(0));
}

size_t results_json_runs(const fs::path& out) {
    if (!fs::exists(out / "results.json")) return 0;
    return results_of(out)["runs"].size();
}

}  // namespace

TEST_CASE("a failed write says its own error, and each file's count as the file holds it",
          "[integration][integrity]") {
    const auto dir = fresh_temp_dir("write-errors");
    const fs::path scenario = six_runs(dir);
    const std::regex on_disk(
        R"(On disk: (\d+) of the (\d+) completed run\(s\): (\d+) in \S+journal.jsonl, (\d+) in )"
        R"(results.sqlite, (\d+) in results.json)");
    size_t cut = 0;  // sizes at which the plan stopped early
    for (const int kib : {48, 64, 80, 96, 112, 128, 160, 192}) {
        INFO("ulimit -f " << kib);
        const fs::path out = dir / ("out-" + std::to_string(kib));
        const auto r =
            run_command("bash -c 'ulimit -f " + std::to_string(kib) + "; exec \"$0\" \"$@\"' " +
                        xferlab() + " run -q --out " + quoted(out) + " " + quoted(scenario));
        INFO(r.err);
        if (r.exit_code == 0) continue;
        REQUIRE(r.exit_code == 3);
        ++cut;
        CHECK_FALSE(contains(r.err, "cannot rollback"));
        CHECK_FALSE(contains(r.err, "no transaction is active"));
        std::smatch m;
        REQUIRE(std::regex_search(r.err, m, on_disk));
        const size_t journal = journal_runs(out), stored = stored_runs(out),
                     json = results_json_runs(out);
        CHECK(std::stoul(m[3]) == journal);
        CHECK(std::stoul(m[4]) == stored);
        CHECK(std::stoul(m[5]) == json);
        CHECK(std::stoul(m[1]) == std::max({journal, stored, json}));
    }
    CHECK(cut >= 4);
    fs::remove_all(dir);
}
