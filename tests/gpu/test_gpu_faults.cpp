// Device faults through the built CLI: a run needing more device memory than the GPU has, and a
// device index the machine does not have, are refused by the preflight before anything runs
// (exit 2, "nothing was run", no results), even when an earlier run of the plan would fit.
// A cudaMalloc that fails past the preflight is covered by test_gpu_errors.cpp (prepare()).
#ifdef XFER_HAVE_CUDA
#include <filesystem>
#include <fstream>
#include <string>

#include "support/catch.hpp"
#include "support/text.hpp"
#include "support/run_command.hpp"

namespace fs = std::filesystem;
using namespace xfer::test;

namespace {


// Run 0 fits easily; run 1 is given by `second` (a [[run]] body).
CommandResult run_plan(const fs::path& dir, const std::string& second) {
    fs::path file = dir / "gpu-faults.toml";
    std::ofstream(file) << "[scenario]\nname = \"gpu-faults\"\nbackend = \"cuda\"\n"
                           "[transfer]\ndirection = \"d2d\"\nbytes = \"8MiB\"\nrepetitions = 2\n"
                           "timing = \"host\"\n[threads]\ncount = 1\n"
                           "[[run]]\nlauncher = \"host\"\n"
                           "[[run]]\nlauncher = \"host\"\n"
                        << second;
    return run_command(xferlab() + " run '" + file.string() + "' --quiet --out '" +
                       (dir / "out").string() + "'");
}

}  // namespace

TEST_CASE("cli: device memory beyond the GPU is refused before run 0, with the sizes",
          "[gpu][faults]") {
    auto dir = fresh_temp_dir("gpu-oom");
    // 2 x 512 GiB on one device: more than any GPU has.
    auto r = run_plan(dir, "transfer.bytes = \"512GiB\"\n");
    INFO(r.err);
    CHECK(r.exit_code == 2);
    CHECK(contains(r.err, "run 1 (host transfer.bytes="));
    CHECK(contains(r.err, "device 0 needs"));
    CHECK_FALSE(contains(r.err, "run 0 ("));  // run 0 fits: only run 1 is named
    CHECK(contains(r.err, "free of"));
    CHECK(contains(r.err, "nothing was run"));
    CHECK_FALSE(fs::exists(dir / "out" / "results.json"));
    fs::remove_all(dir);
}

TEST_CASE("cli: a device index past the device count is refused before run 0", "[gpu][faults]") {
    auto dir = fresh_temp_dir("gpu-device");
    auto r = run_plan(dir, "transfer.devices = [1000]\n");
    INFO(r.err);
    CHECK(r.exit_code == 2);
    CHECK(contains(r.err, "transfer.devices lists device 1000 but this machine has"));
    CHECK(contains(r.err, "nothing was run"));
    CHECK_FALSE(fs::exists(dir / "out" / "results.json"));
    fs::remove_all(dir);
}
#endif
