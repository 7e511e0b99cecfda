// The whole transfer matrix, small: every direction x host memory kind x api x stream, two
// workers each, every byte verified and every copy joined to its CUPTI memcpy record.
#ifdef XFER_HAVE_CUDA
#include <string>
#include <vector>

#include "gpu_harness.hpp"
#include "support/catch.hpp"

using namespace xfer;
using namespace xfer::gpu_test;

namespace {

const std::vector<HostMemoryKind> kHostKinds = {
    HostMemoryKind::pageable,   HostMemoryKind::hugepage,       HostMemoryKind::pinned,
    HostMemoryKind::registered, HostMemoryKind::write_combined, HostMemoryKind::numa};
const std::vector<CopyApi> kApis = {CopyApi::sync, CopyApi::async};
const std::vector<StreamKind> kStreams = {StreamKind::legacy, StreamKind::per_thread,
                                          StreamKind::non_blocking};

// The facts every traced run must show.
void check_run(const TransferSpec& t, const RunOutcome& run, int workers, bool expect_cupti) {
    INFO(describe(t));
    INFO("notes:\n" << joined(run.notes));
    INFO("errors:\n" << joined(run.errors));
    REQUIRE(run.errors.empty());
    REQUIRE(run.records.size() == size_t(workers * (t.repetitions + t.warmup)));
    REQUIRE(run.mismatch.size() == size_t(workers));
    for (int64_t m : run.mismatch) CHECK(m == -1);  // every byte of every destination arrived
    if (!expect_cupti) return;
    int joined_count = 0;
    for (const auto& r : run.records) {
        CHECK(r.correlation != 0);
        if (r.device_timing != DeviceTiming::cupti) continue;
        ++joined_count;
        CHECK(r.device_end_ns >= r.device_start_ns);
        CHECK(r.device_start_ns >= r.host_start_ns - kClockToleranceNs);
        CHECK(r.device_end_ns <= r.host_end_ns + kClockToleranceNs);
    }
    INFO("worst overhang of a device interval past its host call: " << worst_overhang(run.records)
                                                                    << " ns");
    CHECK(joined_count == int(run.records.size()));  // every copy joined, warm-ups included
}

}  // namespace

TEST_CASE("h2d, d2h and h2h: every host memory kind x api x stream verifies and joins CUPTI",
          "[gpu][matrix]") {
    Backend& b = cuda_backend();
    int combos = 0, h2h_unjoined = 0;
    for (Direction d : {Direction::h2d, Direction::d2h, Direction::h2h}) {
        for (HostMemoryKind m : kHostKinds) {
            for (CopyApi api : kApis) {
                for (StreamKind s : kStreams) {
                    TransferSpec t = spec(d, m, api, s);
                    RunOutcome run;
                    try {
                        run = run_copies(b, t, 2);
                    } catch (const std::exception& e) {
                        std::string what = e.what();
                        // numa:<n> needs libnuma at build time; say so instead of failing.
                        if (m == HostMemoryKind::numa && what.find("numa") != std::string::npos) {
                            WARN("numa:0 host memory unavailable here: " << what);
                            continue;
                        }
                        FAIL(describe(t) << ": " << what);
                    }
                    ++combos;
                    if (d == Direction::h2h) {
                        // Host-to-host cudaMemcpy may run on the CPU without a memcpy activity
                        // record; report what CUPTI did rather than demand a record.
                        check_run(t, run, 2, false);
                        for (const auto& r : run.records) {
                            if (r.device_timing == DeviceTiming::cupti) {
                                CHECK(r.device_start_ns >= r.host_start_ns - kClockToleranceNs);
                                CHECK(r.device_end_ns <= r.host_end_ns + kClockToleranceNs);
                            } else {
                                ++h2h_unjoined;
                            }
                        }
                    } else {
                        check_run(t, run, 2, true);
                    }
                }
            }
        }
    }
    if (h2h_unjoined > 0) WARN(h2h_unjoined << " host-to-host copies had no CUPTI memcpy record");
    CHECK(combos >= 90);  // 3 directions x 5 kinds (numa aside) x 2 apis x 3 streams
}

TEST_CASE("d2d: every api x stream verifies and joins CUPTI", "[gpu][matrix]") {
    Backend& b = cuda_backend();
    for (CopyApi api : kApis) {
        for (StreamKind s : kStreams) {
            TransferSpec t = spec(Direction::d2d, HostMemoryKind::pageable, api, s);
            check_run(t, run_copies(b, t, 2), 2, true);
        }
    }
}

TEST_CASE("p2p: every api x stream verifies and joins CUPTI, or says why it cannot run",
          "[gpu][matrix][p2p]") {
    Backend& b = cuda_backend();
    TransferSpec t =
        spec(Direction::p2p, HostMemoryKind::pageable, CopyApi::sync, StreamKind::per_thread);
    if (device_count() < 2) {
        CHECK(refused_reason(b, t, 2).find("two devices") != std::string::npos);
        WARN("p2p skipped: this machine has 1 CUDA device (can_run() says why, verified above)");
        return;
    }
    for (CopyApi api : kApis) {
        for (StreamKind s : kStreams) {
            t = spec(Direction::p2p, HostMemoryKind::pageable, api, s);
            RunOutcome run = run_copies(b, t, 2);
            check_run(t, run, 2, true);
            // Worker 0 copies 0 -> 1 and worker 1 copies 1 -> 0: both devices are sources.
            CHECK(run.devices[0] != run.devices[1]);
            bool peer_noted = false;
            for (const auto& n : run.notes)
                if (n.find("p2p 0 -> 1") != std::string::npos) peer_noted = true;
            INFO(joined(run.notes));
            CHECK(peer_noted);  // the notes say whether peer access was enabled, or why not
        }
    }
}
#endif  // XFER_HAVE_CUDA
