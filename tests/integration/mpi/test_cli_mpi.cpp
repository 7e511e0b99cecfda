// Launcher "mpi" under a real mpirun on this machine: rank 0's report holds every rank's
// records, on one clock, with each worker's host. Built only when MPI is found.
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include "support/catch.hpp"
#include "support/run_command.hpp"

namespace fs = std::filesystem;
using namespace xfer::test;
using json = nlohmann::json;

namespace {

std::string mpirun(int ranks) {
    std::string cmd =
        std::string("'") + XFER_MPIEXEC + "' -n " + std::to_string(ranks) + " --oversubscribe";
    if (geteuid() == 0) cmd += " --allow-run-as-root";  // CI containers run as root
    return cmd + " ";
}

json run_under_mpirun(const std::string& scenario_body, int ranks, CommandResult& command) {
    fs::path dir = fresh_temp_dir("mpi");
    std::ofstream(dir / "mpi.toml") << scenario_body;
    command = run_command(mpirun(ranks) + xferlab() + " run '" + (dir / "mpi.toml").string() +
                          "' --quiet --out '" + (dir / "out").string() + "'");
    return json::parse(slurp(dir / "out" / "results.json"));
}

const char* kScenario = R"([scenario]
name = "mpi-test"
backend = "host"
[transfer]
direction = "h2h"
bytes = "1MiB"
repetitions = 6
warmup = 1
[threads]
count = 4
[[run]]
launcher = "host"
[[run]]
launcher = "mpi"
)";

// "rank 1 -120 ns +- 2.10 us" -> {-120, 2100}
std::pair<double, double> offset_of_rank1(const std::string& notes) {
    std::smatch m;
    const std::regex pattern(R"(rank 1 (-?[0-9.]+) (ns|us|ms|s) \+- ([0-9.]+) (ns|us|ms|s))");
    REQUIRE(std::regex_search(notes, m, pattern));
    auto ns = [](const std::string& v, const std::string& unit) {
        const double scale = unit == "ns" ? 1 : unit == "us" ? 1e3 : unit == "ms" ? 1e6 : 1e9;
        return std::stod(v) * scale;
    };
    return {ns(m[1], m[2]), ns(m[3], m[4])};
}

}  // namespace

TEST_CASE("mpirun -n 2: rank 0's report holds both ranks' records on one clock",
          "[integration][mpi]") {
    CommandResult command;
    json results = run_under_mpirun(kScenario, 2, command);
    INFO(command.err);
    REQUIRE(command.exit_code == 0);
    REQUIRE(results["runs"].size() == 2);
    const json& host_run = results["runs"][0];
    const json& mpi_run = results["runs"][1];
    CHECK(host_run["status"].get<std::string>() == "ok");  // rank 0 ran it alone
    CHECK(mpi_run["status"].get<std::string>() == "ok");

    // Workers 0 and 2 on rank 0, 1 and 3 on rank 1: two processes, each worker's host named.
    std::map<int, int> pid_of_worker;
    for (const auto& t : mpi_run["thread_infos"]) {
        pid_of_worker[t["worker"].get<int>()] = t["pid"].get<int>();
        CHECK(!t["hostname"].get<std::string>().empty());
        CHECK(t["launcher"].get<std::string>() == "mpi");
    }
    REQUIRE(pid_of_worker.size() == 4);
    CHECK(pid_of_worker[0] == pid_of_worker[2]);
    CHECK(pid_of_worker[1] == pid_of_worker[3]);
    CHECK(pid_of_worker[0] != pid_of_worker[1]);

    std::map<int, int> measured;
    int64_t first_start = INT64_MAX, last_end = 0;
    for (const auto& r : mpi_run["records"]) {
        if (r["warmup"].get<bool>()) continue;
        measured[r["worker"].get<int>()]++;
        first_start = std::min(first_start, r["host_start_ns"].get<int64_t>());
        last_end = std::max(last_end, r["host_end_ns"].get<int64_t>());
    }
    CHECK(measured == std::map<int, int>{{0, 6}, {1, 6}, {2, 6}, {3, 6}});
    // One host, one CLOCK_MONOTONIC: the measured offset is within its own error bound of 0
    // (the note says "rank 1 <offset> +- <bound>"), and every record lies inside the run.
    std::string notes = mpi_run["notes"].dump();
    INFO(notes);
    CHECK(notes.find("2 MPI ranks on") != std::string::npos);
    // Both ranks read the same clock here: the ping-pong's offset must lie within its bound
    // (plus the 2-digit rounding of the printed values).
    auto [offset, bound] = offset_of_rank1(notes);
    CHECK(std::abs(offset) <= bound * 1.01 + 10);
    CHECK(first_start >= mpi_run["start_ns"].get<int64_t>());
    CHECK(last_end <= mpi_run["end_ns"].get<int64_t>());
    const json& analysis = mpi_run["analysis"];
    CHECK(analysis.is_object());
}

TEST_CASE("a run of launcher mpi outside mpirun is skipped and says why", "[integration][mpi]") {
    fs::path dir = fresh_temp_dir("mpi-skip");
    std::ofstream(dir / "mpi.toml") << kScenario;
    auto r = run_command(xferlab() + " run '" + (dir / "mpi.toml").string() + "' --quiet --out '" +
                         (dir / "out").string() + "'");
    INFO(r.err);
    CHECK(r.exit_code == 0);
    json results = json::parse(slurp(dir / "out" / "results.json"));
    const json& run = results["runs"][1];
    CHECK(run["status"].get<std::string>() == "skipped");
    CHECK(run["notes"].dump().find("not started by mpirun") != std::string::npos);
}

TEST_CASE("mpirun -n 2: run --fit is refused, every rank would size to its own memory",
          "[integration][mpi]") {
    fs::path dir = fresh_temp_dir("mpi-fit");
    std::ofstream(dir / "mpi.toml") << kScenario;
    auto r = run_command(mpirun(2) + xferlab() + " run '" + (dir / "mpi.toml").string() +
                         "' --fit --quiet --out '" + (dir / "out").string() + "'");
    INFO(r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("--fit is for one process, not an MPI job: choose the size with --set "
                     "transfer.bytes=...") != std::string::npos);
    CHECK(r.err.find("nothing was run") != std::string::npos);
    CHECK_FALSE(fs::exists(dir / "out" / "results.json"));
    fs::remove_all(dir);
}
