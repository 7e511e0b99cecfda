// `check` refuses what `run` refuses, with the same messages and exit code 2: both commands
// load the plan with load_plan and judge it with PlanRunner::preflight. What check cannot judge
// on this machine it names as a warning.
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "support/catch.hpp"
#include "support/run_command.hpp"
#include "support/text.hpp"

namespace fs = std::filesystem;
using namespace xfer::test;

namespace {

// A one-run scenario: `scenario_keys` go into [scenario], `transfer_keys` into [transfer].
fs::path write_check_scenario(const fs::path& dir, const std::string& scenario_keys,
                              const std::string& transfer_keys, const std::string& run_keys) {
    const fs::path file = dir / "case.toml";
    std::ofstream(file) << "[scenario]\nname = \"case\"\n"
                        << scenario_keys << "[transfer]\nrepetitions = 2\n"
                        << transfer_keys << "[[run]]\n"
                        << run_keys;
    return file;
}

// The lines of stderr that say why the file is refused: what both commands print, without
// each command's own closing line and without check's warnings.
std::set<std::string> reasons(const std::string& err) {
    std::set<std::string> out;
    std::istringstream in(err);
    for (std::string line; std::getline(in, line);) {
        if (contains(line, "nothing was run") || contains(line, "error(s)") ||
            contains(line, "problem(s) on this machine") || contains(line, ": warning: "))
            continue;
        out.insert(line);
    }
    return out;
}

// Runs `check` and `run` on the file; both must exit 2 with the same reasons, one of which
// contains `expected`.
void both_refuse(const fs::path& file, const std::string& expected) {
    const std::string quoted = "'" + file.string() + "'";
    const auto check = run_command(xferlab() + " check " + quoted);
    const fs::path out = file.parent_path() / "out";
    const auto run = run_command(xferlab() + " run --quiet --out '" + out.string() + "' " + quoted);
    INFO("check:\n" << check.err << "run:\n" << run.err);
    CHECK(check.exit_code == 2);
    CHECK(run.exit_code == 2);
    CHECK_FALSE(fs::exists(out / "results.json"));
    const auto check_reasons = reasons(check.err), run_reasons = reasons(run.err);
    CHECK(check_reasons == run_reasons);
    bool found = false;
    for (const auto& line : run_reasons) found |= contains(line, expected);
    CHECK(found);
}

}  // namespace

TEST_CASE("check and run both refuse copies larger than the machine's memory",
          "[integration][check]") {
    const auto dir = fresh_temp_dir("check-memory");
    const auto file = write_check_scenario(dir, "backend = \"host\"\n", "bytes = \"1000TiB\"\n",
                                           "launcher = \"host\"\n");
    both_refuse(file, file.string() +
                          ": the largest run needs 1.95 PiB of host memory, more than this "
                          "machine has (");
    fs::remove_all(dir);
}

TEST_CASE("check and run both refuse a payload that is not there", "[integration][check]") {
    const auto dir = fresh_temp_dir("check-payload");
    const auto file =
        write_check_scenario(dir, "backend = \"host\"\n", "bytes = \"64KiB\"\n",
                             "launcher = \"python\"\npayload = \"no_such_payload.py\"\n");
    both_refuse(file, file.string() +
                          ":9:1: error: run[1].payload: payload 'no_such_payload.py': not "
                          "found: looked for ");
    fs::remove_all(dir);
}

TEST_CASE("check and run both refuse pinned memory on the host backend", "[integration][check]") {
    const auto dir = fresh_temp_dir("check-pinned");
    const auto file = write_check_scenario(dir, "backend = \"host\"\n",
                                           "bytes = \"64KiB\"\nhost_memory = \"pinned\"\n",
                                           "launcher = \"host\"\n");
    both_refuse(file, file.string() +
                          ": run 0 (host): transfer.host_memory = \"pinned\" needs the cuda "
                          "backend (page-locked memory is allocated by CUDA); this run's backend "
                          "is host (use backend = \"cuda\", or \"auto\" to skip such runs "
                          "where CUDA is unavailable)");
    fs::remove_all(dir);
}

TEST_CASE("check and run both refuse a backend unavailable here", "[integration][check]") {
    if (cuda_available()) {
        WARN("skipped: cuda is available on this machine");
        return;
    }
    const auto dir = fresh_temp_dir("check-cuda");
    const auto file = write_check_scenario(dir, "backend = \"cuda\"\n", "bytes = \"64KiB\"\n",
                                           "launcher = \"host\"\n");
    both_refuse(file, file.string() + ": backend cuda is unavailable here (");
    both_refuse(file, "): the run needs it");
    fs::remove_all(dir);
}

TEST_CASE("check names what it could not check here as a warning, and passes",
          "[integration][check]") {
    if (cuda_available()) {
        WARN("skipped: cuda is available on this machine");
        return;
    }
    const auto dir = fresh_temp_dir("check-warn");
    const auto file = write_check_scenario(dir, "", "bytes = \"64KiB\"\n",
                                           "launcher = \"host\"\n[[run]]\nlauncher = \"host\"\n"
                                           "transfer.context = \"per-worker\"\n");
    const auto r = run_command(xferlab() + " check '" + file.string() + "'");
    INFO(r.err);
    CHECK(r.exit_code == 0);
    CHECK(contains(r.err, file.string() + ": warning: cuda is unavailable here ("));
    CHECK(contains(r.err,
                   "): device checks skipped; backend auto was checked as host, which "
                   "`run` uses here\n"));
    CHECK(contains(r.err, file.string() +
                              ": warning: run 1 (host transfer.context=per-worker): not checked: "
                              "`run` skips it here: transfer.context = \"per-worker\" needs the "
                              "cuda backend"));
    fs::remove_all(dir);
}
