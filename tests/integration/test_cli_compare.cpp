// xferlab compare on committed results files, and trials end to end (run --trials).
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "support/catch.hpp"
#include "support/committed_results.hpp"
#include "support/run_command.hpp"
#include "support/small_scenario.hpp"

namespace fs = std::filesystem;
using namespace xfer::test;

namespace {

// Runs measured on the H200 hosts (tests/fixtures/measured), decompressed for xferlab.
std::string compare_one_gpu() { return measured_fixture("h200-processes.processes-1gpu").string(); }
std::string compare_per_gpu() {
    return measured_fixture("h200-processes.processes-per-gpu").string();
}
std::string compare_seed_256mib() {
    return measured_fixture("h200x2-validation.seed-256MiB").string();
}

}  // namespace

TEST_CASE("compare pairs two results files' runs by label", "[cli][compare]") {
    const auto r =
        run_command(xferlab() + " compare '" + compare_one_gpu() + "' '" + compare_per_gpu() + "'");
    CHECK(r.exit_code == 0);
    CHECK(r.out.find("Runs paired by label (B against A)") != std::string::npos);
    // One trial a side: not tested, not "no difference found".
    CHECK(r.out.find("6.36 GB/s  11.29 GB/s  1.78x, not tested (1 trial: between-run drift") !=
          std::string::npos);
    CHECK(r.out.find("Summary: 5 pairs: 0 faster, 0 slower, 0 no difference found, 5 not tested") !=
          std::string::npos);
    CHECK(r.out.find("Only in") == std::string::npos);
}

TEST_CASE("compare reads a results.sqlite, as its help says, where no results.json was written",
          "[cli][compare]") {
    // A run stopped by SIGKILL leaves results.sqlite and the journal, not results.json.
    const fs::path dir = fresh_temp_dir("compare-sqlite");
    const fs::path scenario = write_small_scenario(dir, "pair");
    for (const char* side : {"a", "b"}) {
        REQUIRE(run_command(xferlab() + " run " + quoted(scenario) + " --quiet --out " +
                            quoted(dir / side))
                    .exit_code == 0);
        fs::remove(dir / side / "results.json");
    }
    const auto r = run_command(xferlab() + " compare " + quoted(dir / "a" / "results.sqlite") +
                               " " + quoted(dir / "b"));
    INFO(r.out << r.err);
    CHECK(r.exit_code == 0);
    CHECK(r.out.find("A: " + (dir / "a" / "results.sqlite").string()) != std::string::npos);
    CHECK(r.out.find("Runs paired by label (B against A)") != std::string::npos);
    const auto help = run_command(xferlab() + " compare --help");
    CHECK(help.out.find("results.sqlite") != std::string::npos);
}

TEST_CASE("compare lists the runs found in one file only, and writes JSON", "[cli][compare]") {
    const auto r = run_command(xferlab() + " compare --format json '" + compare_one_gpu() + "' '" +
                               compare_seed_256mib() + "'");
    REQUIRE(r.exit_code == 0);
    const auto j = nlohmann::json::parse(r.out);
    CHECK(j["pairs"].size() == 2);
    CHECK(j["pairs"][0]["label"] == "host");
    CHECK(j["pairs"][0]["comparison"]["finding"] == "not tested");
    CHECK(j["summary"]["not_tested"] == 2);
    CHECK(j["only_in_a"] == nlohmann::json({"process", "process", "mpi"}));
    CHECK(j["only_in_b"] == nlohmann::json({"openmp", "python gil=hold", "host+gil gil=release"}));
    CHECK(j["summary"]["pairs"] == 2);

    const auto bad =
        run_command(xferlab() + " compare '" + compare_one_gpu() + "' /nonexistent.json");
    CHECK(bad.exit_code == 2);
    CHECK(bad.err.find("/nonexistent.json cannot be opened") != std::string::npos);
}

TEST_CASE("run --trials: each trial a run of its own, grouped in the report and runs.csv",
          "[cli][compare][trials]") {
    const fs::path dir = fs::temp_directory_path() / ("xfer-trials-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    {
        std::ofstream f(dir / "t.toml");
        f << "[transfer]\ndirection = \"h2h\"\nbytes = \"1MiB\"\nrepetitions = 2\n"
             "[[run]]\nlauncher = \"host\"\n[[run]]\nlauncher = \"openmp\"\n";
    }
    const auto r = run_command(xferlab() + " run -q --full --trials 2 --out '" +
                               (dir / "out").string() + "' '" + (dir / "t.toml").string() + "'");
    REQUIRE(r.exit_code == 0);
    CHECK(r.out.find("host (trial 2)") != std::string::npos);
    CHECK(r.out.find("Verdicts across trials") != std::string::npos);
    const auto j = nlohmann::json::parse(slurp(dir / "out" / "results.json"));
    REQUIRE(j["runs"].size() == 4);
    CHECK(j["runs"][2]["label"] == "host");
    CHECK(j["runs"][2]["trial"] == 2);
    CHECK(j["scenario"]["scenario"]["trials"] == 2);
    CHECK(j["trial_groups"].size() == 2);
    // 2 vs 2 trials: the exact test's smallest p is 1/3: not testable, and said so.
    const std::string verdict = j["trial_groups"][1]["vs_baseline"]["verdict"];
    CHECK(verdict.find("not testable with 2 vs 2 trials (the smallest p they can give is 0.33; "
                       "run with --trials 5)") != std::string::npos);
    const std::string csv = slurp(dir / "out" / "runs.csv");
    CHECK(csv.find("\nrun,host,,2,") != std::string::npos);
    CHECK(csv.find("\ntrial,openmp,2,,3,openmp,") != std::string::npos);
    // compare of a file with itself: every pair found, none different.
    const std::string res = (dir / "out" / "results.json").string();
    const auto same = run_command(xferlab() + " compare '" + res + "' '" + res + "'");
    CHECK(same.out.find("2 pairs: 0 faster, 0 slower, 0 no difference found, 2 not testable") !=
          std::string::npos);
    fs::remove_all(dir);
}

TEST_CASE("check --trials shows each trial and counts them", "[cli][trials]") {
    const std::string seed =
        (fs::path(XFER_SOURCE_DIR) / "scenarios" / "isolate-gil.toml").string();
    const auto r = run_command(xferlab() + " check --trials 3 '" + seed + "'");
    CHECK(r.exit_code == 0);
    CHECK(r.out.find(" x 3 trials (interleaved)), ") != std::string::npos);
    CHECK(r.out.find(" (trial 3) ") != std::string::npos);
    const auto bad = run_command(xferlab() + " check --trials 0 '" + seed + "'");
    CHECK(bad.exit_code == 2);
    CHECK(bad.err.find("--trials") != std::string::npos);
}
