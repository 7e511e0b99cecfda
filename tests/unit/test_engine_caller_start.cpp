// staging.start: with shared buffers a caller opens its copy's first buffer and fills pieces of
// it on its own thread while the helpers it woke come; the DMAs stay the helpers' to start;
// "helpers" leaves all of it to them. Measured here by the thread each copy and DMA start came
// from, through the probe that the engine's decorator tells.
#include <unistd.h>

#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

#include "engine/fake/host_staging_device.hpp"
#include "engine/measured_staging_device.hpp"
#include "engine/staging_engine.hpp"
#include "engine/stats_probe.hpp"
#include "support/catch.hpp"

using namespace xfer;

namespace caller_start_test {

constexpr uint64_t KiB = 1024;

// A StatsProbe that also notes the kernel thread of each host copy and DMA start.
class WhoProbe : public StatsProbe {
  public:
    struct Call {
        int helper;
        int tid;
        uint64_t bytes;
    };
    explicit WhoProbe(int helpers) : StatsProbe(helpers) {}
    void copied(int helper, uint64_t bytes, int64_t begin, int64_t end) override {
        StatsProbe::copied(helper, bytes, begin, end);
        std::lock_guard lock(mutex_);
        copies.push_back({helper, int(::gettid()), bytes});
    }
    void dma_started(int helper, uint64_t request, int64_t begin, int64_t end) override {
        StatsProbe::dma_started(helper, request, begin, end);
        std::lock_guard lock(mutex_);
        starts.push_back({helper, int(::gettid()), 0});
    }
    std::vector<Call> copies, starts;  // read after the engine stopped

  private:
    std::mutex mutex_;
};

std::vector<std::byte> pattern(uint64_t n, int seed) {
    std::vector<std::byte> v(n);
    for (uint64_t i = 0; i < n; ++i) v[i] = std::byte(uint8_t(i * 7 + uint64_t(seed)));
    return v;
}

}  // namespace caller_start_test

TEST_CASE(
    "staging.start: the caller copies pieces of its first buffer to the device, a quarter chunk "
    "each, and starts no DMA; with \"helpers\" it copies nothing",
    "[staging][shared]") {
    using namespace caller_start_test;
    for (bool caller : {true, false}) {
        INFO("caller_starts " << caller);
        StagingConfig c;
        c.threads = 3;
        c.buffers = 2;
        c.chunk = 256 * KiB;
        c.dma_chunk = 1024 * KiB;  // units of four chunks
        c.caller_starts = caller;
        auto probe = std::make_shared<WhoProbe>(c.threads);
        StagingEngine engine(
            c, measured_device(std::make_unique<HostStagingDevice>(staging_layout(c)), probe, c));
        engine.start();
        const uint64_t bytes = 3 * c.dma_chunk + 123;
        const std::vector<std::byte> source = pattern(bytes, 5);
        std::vector<std::byte> device(bytes), back(bytes), device2(bytes);
        int caller_tid = 0;
        std::thread t([&] {
            caller_tid = int(::gettid());
            engine.to_device(device.data(), source.data(), bytes);
            engine.from_device(back.data(), device.data(), bytes);
            // Taken as page-locked: DMA'd in place, no pieces.
            engine.to_device(device2.data(), source.data(), bytes, true);
        });
        t.join();
        engine.stop();
        REQUIRE(device == source);
        REQUIRE(back == source);
        REQUIRE(device2 == source);

        uint64_t caller_bytes = 0;
        int caller_copies = 0;
        for (const auto& call : probe->copies) {
            CHECK((call.helper == kCallerThread) == (call.tid == caller_tid));
            if (call.helper != kCallerThread) continue;
            if (caller_copies++ == 0) CHECK(call.bytes == c.chunk / 4);  // its first piece
            CHECK(call.bytes <= c.chunk / 4);
            caller_bytes += call.bytes;
        }
        for (const auto& call : probe->starts) {  // every DMA on a helper's thread
            CHECK(call.helper != kCallerThread);
            CHECK(call.tid != caller_tid);
        }
        const ProbeTotals totals = probe->totals();
        CHECK(totals.callers.copied_bytes == caller_bytes);
        CHECK(totals.callers.chunks == 0);
        if (caller) {
            // Pieces of the first buffer to the device only (from it the helpers copy out).
            CHECK(caller_bytes >= c.chunk / 4);
            CHECK(caller_bytes <= c.dma_chunk);
        } else {
            CHECK(caller_copies == 0);
        }
        // Every bounced byte copied once each way, by helpers and the caller together.
        CHECK(totals.work.copied_bytes + totals.callers.copied_bytes == 2 * bytes);
    }
}
