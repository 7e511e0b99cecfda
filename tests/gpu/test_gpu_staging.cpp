// transfer.path on a real device, through the built CLI: every direction x path x launcher
// moves every byte (verify = true: a mismatch fails the run), odd sizes (not a multiple of the
// chunk, smaller than one chunk), one and four workers; staged copies are joined to their
// chunks' CUPTI records, the helpers' ThreadInfo is recorded, register's cost is reported apart.
#ifdef XFER_HAVE_CUDA
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "support/catch.hpp"
#include "support/run_command.hpp"
#include "support/text.hpp"

namespace fs = std::filesystem;
using namespace xfer::test;

namespace {

const char* kRuns =
    "[[run]]\nlauncher = \"host\"\n"
    "[[run]]\nlauncher = \"openmp\"\n"
    "[[run]]\nlauncher = \"python\"\npayload = \"threads.py\"\ngil = \"release\"\n"
    "[[run]]\nlauncher = \"python\"\npayload = \"threads_batch.py\"\ngil = \"hold\"\n"
    "[[run]]\nlauncher = \"host+gil\"\n"
    "[[run]]\nlauncher = \"process\"\n";
constexpr int kRunsPerPoint = 6;

struct Case {
    const char* bytes;  // transfer.bytes
    const char* chunk;  // staging.chunk
    int workers;
    const char* streams = "per-helper";  // staging.streams
    const char* wait = "spin";           // staging.wait
    const char* dma = "auto";            // staging.dma: "chunk", each helper its own buffers
};

nlohmann::json run_matrix(const Case& c) {
    fs::path dir = fresh_temp_dir("gpu-staging");
    fs::path file = dir / "staging.toml";
    std::ofstream(file) << "[scenario]\nname = \"gpu-staging\"\nbackend = \"cuda\"\n"
                           "[transfer]\nbytes = "
                        << c.bytes
                        << "\nhost_memory = \"pageable\"\ntiming = \"cupti\"\n"
                           "repetitions = 2\nwarmup = 1\nverify = true\n"
                           "[staging]\nthreads = 3\nbuffers = 2\nchunk = "
                        << c.chunk << "\nstreams = \"" << c.streams << "\"\nwait = \"" << c.wait
                        << "\"\ndma = \"" << c.dma << "\"\n[threads]\ncount = " << c.workers
                        << "\n[sweep]\n\"transfer.direction\" = [\"h2d\", \"d2h\"]\n"
                           "\"transfer.path\" = [\"driver\", \"register\", \"staged\"]\n"
                        << kRuns;
    auto r = run_command(xferlab() + " run '" + file.string() + "' --quiet --out '" +
                         (dir / "out").string() + "'");
    INFO(r.out);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    auto results = nlohmann::json::parse(slurp(dir / "out" / "results.json"));
    fs::remove_all(dir);
    return results;
}

void check_matrix(const Case& c) {
    INFO("bytes " << c.bytes << ", chunk " << c.chunk << ", workers " << c.workers << ", streams "
                  << c.streams << ", wait " << c.wait << ", dma " << c.dma);
    auto results = run_matrix(c);
    REQUIRE(results["runs"].size() == size_t(2 * 3 * kRunsPerPoint));
    for (const auto& run : results["runs"]) {
        const std::string path = run["settings"]["transfer"]["path"].get<std::string>();
        const std::string launcher = run["launcher"].get<std::string>();
        INFO(run["label"].get<std::string>() << " notes: " << run["notes"].dump());
        CHECK(run["status"].get<std::string>() == "ok");  // verify = true: every byte checked
        CHECK(run["records"].size() == size_t(3 * c.workers));
        for (const auto& rec : run["records"]) {
            INFO(rec.dump());
            CHECK(rec["device_timing"].get<std::string>() == "cupti");
            CHECK(rec["device_end_ns"].get<int64_t>() >= rec["device_start_ns"].get<int64_t>());
        }
        const std::string notes = run["notes"].dump();
        if (path == "staged") {
            // One engine per device per process: worker processes each run their own.
            const size_t engines = launcher == "process" ? size_t(c.workers) : 1;
            CHECK(run["helper_threads"].size() == 3 * engines);
            // The helpers copied every byte of every copy (warm-up included) once on the host
            // (staging.start = "helpers", the default: no caller copies a piece).
            uint64_t copied = 0;
            for (const auto& h : run["helper_threads"]) {
                CHECK(contains(h["launcher"].get<std::string>(), "staging (device 0)"));
                copied += h["work"]["copied_bytes"].get<uint64_t>();
            }
            CHECK(copied == run["bytes_per_copy"].get<uint64_t>() * run["records"].size());
            CHECK(contains(notes, std::string(c.streams) == "one"
                                      ? "DMAs on one stream (staging.streams = \\\"one\\\")"
                                      : "DMAs on one stream per helper"));
            CHECK(
                contains(notes, std::string(c.wait) == "block"
                                    ? "helpers sleep (staging.wait = \\\"block\\\") while they wait"
                                    : "helpers spin while they wait"));
            CHECK(contains(notes, "staging on device 0: 3 helper threads (staging.threads)"));
        } else {
            CHECK(run["helper_threads"].empty());
        }
        if (path == "register")
            CHECK(contains(notes, "path = \\\"register\\\": cudaHostRegister of each"));
    }
}

}  // namespace

TEST_CASE(
    "transfer.path: every direction x path x launcher verifies, odd sizes, 1 and 4 "
    "workers",
    "[gpu][staging]") {
    check_matrix({"3158073", "\"1MiB\"", 4});    // 3 MiB + 12345: not a multiple of the chunk
    check_matrix({"100001", "\"auto\"", 1});     // smaller than the default chunk: one chunk
    check_matrix({"\"8MiB\"", "\"64KiB\"", 1});  // many chunks per copy
    // All helpers' DMAs on the engine's one stream.
    check_matrix({"3158073", "\"1MiB\"", 4, "one"});
    check_matrix({"\"8MiB\"", "\"64KiB\"", 1, "one"});
    // Helpers that sleep while their DMA runs (events with cudaEventBlockingSync).
    check_matrix({"3158073", "\"1MiB\"", 4, "one", "block"});
    // Each helper its own buffers, a DMA per chunk (the layout before issue #45's defaults).
    check_matrix({"3158073", "\"1MiB\"", 4, "per-helper", "spin", "chunk"});
    check_matrix({"\"8MiB\"", "\"64KiB\"", 1, "one", "spin", "chunk"});
}

TEST_CASE("transfer.path = staged: a chunk larger than the copy is refused before anything runs",
          "[gpu][staging]") {
    auto r = run_command(xferlab() + " run '" XFER_SOURCE_DIR
                                     "/scenarios/cure-pageable.toml' --quiet"
                                     " --out \"$(mktemp -d)/out\" --set transfer.bytes=1MiB"
                                     " --set staging.chunk=4MiB");
    INFO(r.out);
    INFO(r.err);
    CHECK(r.exit_code == 2);
    CHECK(contains(r.err,
                   "staging.chunk = 4 MiB is larger than the copy (transfer.bytes = "
                   "1 MiB)"));
}
#endif
