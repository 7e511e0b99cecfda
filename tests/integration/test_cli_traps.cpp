// The CLI traps of issue #31: `--set` takes one value per flag (a scenario file after it is a
// file), report/plot/compare read a results folder, `--out ""` is a message and exit 2, compare
// warns about pairs whose runs differ in settings (--strict refuses them), and `list` marks the
// scenarios that need CUDA.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "support/catch.hpp"
#include "support/run_command.hpp"
#include "support/text.hpp"

namespace fs = std::filesystem;
using namespace xfer::test;

namespace {

// A host-backend scenario of `bytes` per copy and 1 thread, written into `dir`.
fs::path trap_scenario(const fs::path& dir, const std::string& name, const std::string& bytes) {
    const fs::path file = dir / (name + ".toml");
    std::ofstream(file) << "[scenario]\nname = \"" << name
                        << "\"\nbackend = \"host\"\n"
                           "[transfer]\ndirection = \"h2h\"\nbytes = \""
                        << bytes
                        << "\"\nrepetitions = 2\n"
                           "[[run]]\nlauncher = \"host\"\n";
    return file;
}

// `xferlab run -q --out OUT ARGS`, required to succeed.
void trap_run(const fs::path& out, const std::string& args) {
    const auto r = run_command(xferlab() + " run -q --out '" + out.string() + "' " + args);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
}

}  // namespace

TEST_CASE("run and check: --set takes one value, the scenario file after it is a file",
          "[integration][traps]") {
    const auto dir = fresh_temp_dir("trap-set");
    const fs::path scenario = trap_scenario(dir, "set", "64KiB");
    const fs::path out = dir / "out";
    const auto r = run_command(xferlab() + " run -q --brief --out '" + out.string() +
                               "' --set threads.count=2 --set transfer.repetitions=3 '" +
                               scenario.string() + "'");
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    const auto j = nlohmann::json::parse(slurp(out / "results.json"));
    REQUIRE(j["runs"].size() == 1);
    CHECK(j["runs"][0]["threads"] == 2);
    // 2 workers x 3 repetitions (+ 1 warm-up each by default, marked as such).
    size_t timed = 0;
    for (const auto& rec : j["runs"][0]["records"]) timed += !rec["warmup"].get<bool>();
    CHECK(timed == 6);
    const auto check =
        run_command(xferlab() + " check --set threads.count=3 '" + scenario.string() + "'");
    INFO(check.err);
    CHECK(check.exit_code == 0);
    CHECK(contains(check.out, ", 9 copies, "));  // 3 workers x (2 repetitions + 1 warm-up)
    fs::remove_all(dir);
}

TEST_CASE("run and plot refuse an empty --out with a message, exit 2, nothing written",
          "[integration][traps]") {
    const auto dir = fresh_temp_dir("trap-out");
    const fs::path scenario = trap_scenario(dir, "empty-out", "64KiB");
    const auto r = run_command("cd '" + dir.string() + "' && " + xferlab() + " run -q --out '' '" +
                               scenario.string() + "'");
    CHECK(r.exit_code == 2);
    CHECK(r.err ==
          "xferlab run: --out is empty: give a folder, or leave --out out for the default "
          "(output.dir in the config)\n");
    CHECK_FALSE(contains(r.err, "filesystem error"));
    CHECK(r.out.empty());
    // Nothing but the scenario in the folder it ran in.
    size_t entries = 0;
    for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++entries;
    CHECK(entries == 1);
    const auto plot = run_command(
        xferlab() + " plot --out '' '" +
        (fs::path(XFER_SOURCE_DIR) / "tests" / "fixtures" / "plots" / "sweep.results.json")
            .string() +
        "'");
    CHECK(plot.exit_code == 2);
    CHECK(plot.err ==
          "xferlab plot: --out is empty: give a folder, or leave --out out for the results "
          "file's folder\n");
    fs::remove_all(dir);
}

TEST_CASE("report, plot and compare read a results folder's results file", "[integration][traps]") {
    const auto dir = fresh_temp_dir("trap-folder");
    const fs::path out = dir / "out";
    trap_run(out, "'" + trap_scenario(dir, "folder", "64KiB").string() + "'");
    const std::string file = (out / "results.json").string();

    const auto by_file = run_command(xferlab() + " report '" + file + "'");
    const auto by_folder = run_command(xferlab() + " report '" + out.string() + "'");
    INFO(by_folder.err);
    REQUIRE(by_file.exit_code == 0);
    CHECK(by_folder.exit_code == 0);
    CHECK(by_folder.out == by_file.out);
    CHECK(by_folder.err.empty());

    // Without results.json the folder's results.sqlite is read, then its journal.jsonl.
    fs::remove(out / "results.json");
    const auto from_store = run_command(xferlab() + " report --brief '" + out.string() + "'");
    INFO(from_store.err);
    CHECK(from_store.exit_code == 0);
    CHECK(
        from_store.out ==
        run_command(xferlab() + " report --brief '" + (out / "results.sqlite").string() + "'").out);
    fs::remove(out / "results.sqlite");
    const auto from_journal = run_command(xferlab() + " report --brief '" + out.string() + "'");
    CHECK(from_journal.exit_code == 0);
    CHECK(
        from_journal.out ==
        run_command(xferlab() + " report --brief '" + (out / "journal.jsonl").string() + "'").out);

    // compare: the folders' files are named, and the pair found.
    const fs::path again = dir / "again";
    trap_run(again, "'" + (dir / "folder.toml").string() + "'");
    const auto compared =
        run_command(xferlab() + " compare '" + again.string() + "' '" + again.string() + "'");
    INFO(compared.err);
    CHECK(compared.exit_code == 0);
    CHECK(contains(compared.out, "A: " + (again / "results.json").string() + "\n"));
    CHECK(contains(compared.out, "Summary: 1 pairs:"));

    // plot: the figures go into the folder, named as for its results.json.
    const auto drawn = run_command(xferlab() + " plot '" + again.string() + "'");
    INFO(drawn.err);
    if (XFER_TEST_MATPLOTLIB != 0) {
        CHECK(drawn.exit_code == 0);
        CHECK(contains(drawn.out, (again / "timeline.png").string() + "\n"));
        CHECK(fs::is_regular_file(again / "timeline.png"));
    } else {
        CHECK(drawn.exit_code == 2);
        CHECK(contains(drawn.err, "matplotlib cannot be imported"));
    }
    CHECK_FALSE(contains(drawn.err, "is a folder"));
    fs::remove_all(dir);
}

TEST_CASE("compare warns per pair about every setting that differs, --strict refuses",
          "[integration][traps][compare]") {
    const auto dir = fresh_temp_dir("trap-compare");
    const fs::path a = dir / "a", b = dir / "b";
    // Same label ("host"), 64 KiB and 1 thread against 16 KiB and 2 threads.
    trap_run(a, "'" + trap_scenario(dir, "sizes", "64KiB").string() + "'");
    trap_run(b, "--set transfer.bytes=16KiB --set threads.count=2 '" +
                    (dir / "sizes.toml").string() + "'");
    const std::string files = " '" + a.string() + "' '" + b.string() + "'";
    const auto r = run_command(xferlab() + " compare" + files);
    INFO(r.err);
    CHECK(r.exit_code == 0);
    CHECK(r.err ==
          "xferlab: warning: pair 'host' differs in settings: threads.count 1 in A, 2 in B; "
          "transfer.bytes 64 KiB in A, 16 KiB in B\n");
    CHECK(contains(r.out, "Settings differ within 1 of the 1 pairs"));

    const auto j = run_command(xferlab() + " compare --format json" + files);
    REQUIRE(j.exit_code == 0);
    const auto parsed = nlohmann::json::parse(j.out);
    CHECK(parsed["summary"]["differing_pairs"] == 1);
    CHECK(parsed["pairs"][0]["differences"] ==
          nlohmann::json::parse(R"([{"setting": "threads.count", "a": "1", "b": "2"},
                                    {"setting": "transfer.bytes", "a": "64 KiB", "b": "16 KiB"}])"));

    const auto strict = run_command(xferlab() + " compare --strict" + files);
    CHECK(strict.exit_code == 2);
    CHECK(strict.out.empty());
    CHECK(strict.err ==
          "xferlab: error: pair 'host' differs in settings: threads.count 1 in A, 2 in B; "
          "transfer.bytes 64 KiB in A, 16 KiB in B\n"
          "xferlab: compare --strict: 1 of the 1 pairs compare runs that differ in settings: "
          "nothing compared\n");

    // Alike runs: no warning, and --strict compares them.
    const auto same =
        run_command(xferlab() + " compare --strict '" + a.string() + "' '" + a.string() + "'");
    CHECK(same.exit_code == 0);
    CHECK(same.err.empty());
    CHECK_FALSE(contains(same.out, "Settings differ"));
    fs::remove_all(dir);
}

TEST_CASE("list marks the scenarios that need CUDA", "[integration][traps]") {
    const auto r = run_command(xferlab() + " list");
    REQUIRE(r.exit_code == 0);
    size_t listed = 0, marked = 0;
    for (const auto& line : lines_of(r.out)) {
        const size_t toml = line.find(".toml");
        if (toml == std::string::npos) continue;
        // The committed scenario's own text: does a line of it say backend = "cuda"?
        const std::string name = line.substr(2, toml + 5 - 2);
        bool cuda = false;
        for (std::string l : lines_of(slurp(fs::path(XFER_SOURCE_DIR) / "scenarios" / name))) {
            l.erase(std::remove(l.begin(), l.end(), ' '), l.end());
            cuda |= l.rfind("backend=\"cuda\"", 0) == 0;
        }
        INFO(line);
        CHECK(contains(line, "[needs CUDA]") == cuda);
        ++listed;
        marked += cuda;
    }
    CHECK(listed >= 13);
    CHECK(marked >= 3);  // cure-pageable, frameworks, staging-sweep
    for (const auto& line : lines_of(r.out))
        if (contains(line, "cure-pageable.toml") || contains(line, "staging-sweep.toml"))
            CHECK(contains(line, "[needs CUDA]"));
        else if (contains(line, "isolate-start.toml") || contains(line, "seed-h2d-threads.toml"))
            CHECK_FALSE(contains(line, "CUDA]"));
        else if (contains(line, "isolate-context.toml"))  // "auto": its pinned and per-worker runs
            CHECK(contains(line, "[4 of 6 runs need CUDA] "));
}
