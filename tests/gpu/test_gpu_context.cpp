// transfer.context = "per-worker": each worker copies in a CUDA context of its own (driver
// API). Bytes verified, every copy joined to a CUPTI record from its own context, every
// direction the backend supports with one device per worker.
#ifdef XFER_HAVE_CUDA
#include <set>
#include <utility>

#include "gpu_harness.hpp"
#include "support/catch.hpp"

using namespace xfer;
using namespace xfer::gpu_test;

namespace {

TransferSpec per_worker(Direction d, HostMemoryKind m, CopyApi api, StreamKind s) {
    TransferSpec t = spec(d, m, api, s);
    t.context = ContextKind::per_worker;
    t.devices = {0};  // all workers on one device: their contexts share it
    return t;
}

}  // namespace

TEST_CASE("per-worker contexts: bytes verified and CUPTI joined in every direction",
          "[gpu][context]") {
    Backend& b = cuda_backend();
    const int workers = 3;
    for (Direction d : {Direction::h2d, Direction::d2h, Direction::d2d, Direction::h2h}) {
        for (HostMemoryKind m :
             {HostMemoryKind::pageable, HostMemoryKind::pinned, HostMemoryKind::registered}) {
            for (CopyApi api : {CopyApi::sync, CopyApi::async}) {
                const TransferSpec t = per_worker(d, m, api, StreamKind::non_blocking);
                INFO(describe(t) << " context=per-worker");
                const RunOutcome out = run_copies(b, t, workers);
                INFO(joined(out.errors) + joined(out.notes));
                REQUIRE(out.errors.empty());
                REQUIRE(out.records.size() == size_t(workers * (t.repetitions + t.warmup)));
                for (int64_t m : out.mismatch) CHECK(m == -1);
                // Every copy joined, and each worker's copies carry one context, a different
                // one for every worker.
                std::set<std::pair<int, uint32_t>> contexts;
                for (const Record& r : out.records) {
                    CHECK(r.device_timing == DeviceTiming::cupti);
                    CHECK(r.context != 0);
                    contexts.insert({r.worker, r.context});
                }
                CHECK(contexts.size() == size_t(workers));
                std::set<uint32_t> ids;
                for (const auto& [w, c] : contexts) ids.insert(c);
                CHECK(ids.size() == size_t(workers));
                CHECK(worst_overhang(out.records) <= kClockToleranceNs);
            }
        }
    }
}

TEST_CASE("primary context: every worker's copies carry the same context", "[gpu][context]") {
    const TransferSpec t = [] {
        TransferSpec s =
            spec(Direction::h2d, HostMemoryKind::pinned, CopyApi::sync, StreamKind::per_thread);
        s.devices = {0};
        return s;
    }();
    const RunOutcome out = run_copies(cuda_backend(), t, 3);
    REQUIRE(out.errors.empty());
    std::set<uint32_t> ids;
    for (const Record& r : out.records) ids.insert(r.context);
    CHECK(ids.size() == 1);
    CHECK(*ids.begin() != 0);
}

TEST_CASE("per-worker contexts refuse p2p, naming the setting", "[gpu][context]") {
    if (device_count() < 2) return;  // p2p needs two devices; nothing to refuse on one
    TransferSpec t =
        spec(Direction::p2p, HostMemoryKind::pageable, CopyApi::sync, StreamKind::per_thread);
    t.context = ContextKind::per_worker;
    const std::string msg = refused_reason(cuda_backend(), t, 2);
    CHECK(msg.find("transfer.context = \"per-worker\"") != std::string::npos);
    CHECK(msg.find("p2p") != std::string::npos);
}

#endif
