// `xferlab watch` with the real injected library (libxferlab_watch.so, loaded by the CUDA driver
// through CUDA_INJECTION64_PATH) on a CUDA program that knows nothing of xferlab
// (support/watch_cuda_program.cpp): every copy the program made is a record with CUPTI device
// times inside its call, the memory kinds CUPTI names, each copying thread a worker, the
// memset counted apart, and a page-locked reference timed on the device afterwards.
#if defined(XFER_HAVE_CUDA) && defined(XFER_WATCH_CUDA_PROGRAM)
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "support/catch.hpp"
#include "support/run_command.hpp"

namespace fs = std::filesystem;
using namespace xfer::test;
using nlohmann::json;

namespace {

constexpr int64_t kToleranceNs = 200'000;  // clock conversion only (gpu_harness.hpp)

json watch_program(const fs::path& dir, const std::string& args, const std::string& flags = "") {
    const CommandResult r = run_command(xferlab() + " watch --quiet --out '" + dir.string() + "' " +
                                        flags + " -- '" XFER_WATCH_CUDA_PROGRAM "' " + args);
    INFO(r.out);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    return results_of(dir);
}

void check_copies(const json& run, size_t copies, uint64_t bytes, const std::string& kind,
                  const std::string& src, const std::string& dst) {
    REQUIRE(run["records"].size() == copies);
    for (const auto& rec : run["records"]) {
        CHECK(rec["size_bytes"].get<uint64_t>() == bytes);
        CHECK(rec["device_timing"] == "cupti");
        CHECK(rec["copy_kind"] == kind);
        CHECK(rec["src_kind"] == src);
        CHECK(rec["dst_kind"] == dst);
        CHECK(rec["device"] == 0);
        CHECK(rec["device_start_ns"].get<int64_t>() >=
              rec["host_start_ns"].get<int64_t>() - kToleranceNs);
        CHECK(rec["device_end_ns"].get<int64_t>() <=
              rec["host_end_ns"].get<int64_t>() + kToleranceNs);
        CHECK(rec["context"].get<uint32_t>() != 0);
    }
}

}  // namespace

TEST_CASE("watch records a CUDA program's pageable copies through the injected library",
          "[gpu][watch]") {
    const fs::path dir = fresh_temp_dir("gpu-watch") / "out";
    const json results = watch_program(dir, "--threads 4 --copies 3 --bytes 33554432");
    const json& run = results["runs"][0];
    CHECK(run["launcher"] == "watched");
    check_copies(run, 12, 32u << 20, "HtoD", "pageable", "device");
    std::set<int> tids;
    for (const auto& rec : run["records"]) tids.insert(rec["tid"].get<int>());
    CHECK(tids.size() == 4);
    CHECK(run["threads"] == 4);
    bool memset_counted = false;
    for (const auto& n : run["notes"])
        memset_counted |=
            n.get<std::string>().find("also set memory 1 time(s)") != std::string::npos;
    CHECK(memset_counted);
    // The page-locked reference xferlab timed on device 0 afterwards.
    REQUIRE(results["runs"].size() == 2);
    CHECK(results["runs"][1]["label"] == "reference pinned h2d device 0");
    CHECK(results["runs"][1]["status"] == "ok");
    const json watched = run["analysis"]["watched"];
    REQUIRE(watched["references"].size() == 1);
    CHECK(watched["references"][0]["aggregate_Bps"].get<double>() > 0);
    // Host pages sampled (32 MiB >= the 1 MiB threshold): each copy's node is known.
    for (const auto& rec : run["records"]) CHECK(rec["host_node"].get<int>() >= 0);
}

TEST_CASE("watch names the memory kinds CUPTI gives: pinned, device to host", "[gpu][watch]") {
    const fs::path dir = fresh_temp_dir("gpu-watch") / "out";
    const json results =
        watch_program(dir, "--threads 2 --copies 2 --bytes 8388608 --pinned --d2h", "--calibrate");
    check_copies(results["runs"][0], 4, 8u << 20, "DtoH", "device", "pinned");
    // --calibrate: xferlab.copy timed too.
    std::set<std::string> labels;
    for (const auto& run : results["runs"]) labels.insert(run["label"].get<std::string>());
    CHECK(labels.count("reference pinned d2h device 0") == 1);
    CHECK(labels.count("xferlab.copy d2h device 0") == 1);
}
#endif
