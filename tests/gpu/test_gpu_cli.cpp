// The built CLI on a real device: `xferlab devices` finds it, and `xferlab run` with backend
// cuda writes results whose every copy has CUPTI device times, from every launcher.
#ifdef XFER_HAVE_CUDA
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "support/catch.hpp"
#include "support/run_command.hpp"

namespace fs = std::filesystem;
using namespace xfer::test;

namespace {

fs::path write_scenario(const fs::path& dir, const std::string& runs) {
    fs::path file = dir / "gpu-smoke.toml";
    std::ofstream out(file);
    out << "[scenario]\nname = \"gpu-smoke\"\nbackend = \"cuda\"\n"
           "[transfer]\ndirection = \"h2d\"\nbytes = \"8MiB\"\nhost_memory = \"pageable\"\n"
           "api = \"sync\"\ntiming = \"cupti\"\nrepetitions = 3\nwarmup = 1\nverify = true\n"
           "[threads]\ncount = 2\n"
        << runs;
    return file;
}

// Runs the scenario and checks every run's status and every record's device timing.
void run_and_check(const std::string& runs, size_t expected_runs) {
    fs::path dir = fresh_temp_dir("gpu-cli");
    fs::path file = write_scenario(dir, runs);
    auto r = run_command(xferlab() + " run '" + file.string() + "' --quiet --out '" +
                         (dir / "out").string() + "'");
    INFO(r.out);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    auto results = nlohmann::json::parse(slurp(dir / "out" / "results.json"));
    REQUIRE(results["runs"].size() == expected_runs);
    for (const auto& run : results["runs"]) {
        INFO(run["label"].get<std::string>());
        CHECK(run["status"].get<std::string>() == "ok");
        CHECK(run["backend"].get<std::string>() == "cuda");
        CHECK(run["records"].size() == 8);  // 2 workers x (3 + 1 warm-up)
        std::set<int> pids;
        for (const auto& t : run["thread_infos"]) pids.insert(t["pid"].get<int>());
        // Worker processes: one process (and CUDA context) per worker; threads: one process.
        CHECK(pids.size() == (run["launcher"].get<std::string>() == "process" ? 2u : 1u));
        for (const auto& rec : run["records"]) {
            CHECK(rec["device_timing"].get<std::string>() == "cupti");
            CHECK(rec["device_start_ns"].get<int64_t>() > 0);
            CHECK(rec["correlation_id"].get<uint32_t>() != 0);
        }
    }
    fs::remove_all(dir);
}

}  // namespace

TEST_CASE("xferlab devices lists the cuda backend as available", "[gpu][cli]") {
    auto r = run_command(xferlab() + " devices --json");
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    auto j = nlohmann::json::parse(r.out);
    bool found = false;
    for (const auto& b : j.at("backends")) {
        if (b["backend"] != "cuda") continue;
        found = true;
        CHECK(b["available"].get<bool>());
        CHECK(b["describe"]["device_count"].get<int>() >= 1);
    }
    CHECK(found);
}

TEST_CASE("xferlab run on cuda: host and openmp launchers", "[gpu][cli]") {
    run_and_check("[[run]]\nlauncher = \"host\"\n[[run]]\nlauncher = \"openmp\"\n", 2);
}

TEST_CASE("xferlab run on cuda: python launcher (gil release, hold) and host+gil", "[gpu][cli]") {
    run_and_check(
        "[[run]]\nlauncher = \"python\"\npayload = \"threads.py\"\ngil = \"release\"\n"
        "[[run]]\nlauncher = \"python\"\npayload = \"threads.py\"\ngil = \"hold\"\n"
        "[[run]]\nlauncher = \"host+gil\"\ngil = \"release\"\n",
        3);
}
TEST_CASE("xferlab run on cuda: process launcher, native and with a payload, CUPTI in each process",
          "[gpu][cli]") {
    run_and_check("[[run]]\nlauncher = \"process\"\n"
                  "[[run]]\nlauncher = \"process\"\npayload = \"threads.py\"\n",
                  2);
}
#endif  // XFER_HAVE_CUDA
