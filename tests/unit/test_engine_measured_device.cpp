// engine/measured_staging_device: measurement as a decorator around the staging device. What the
// probe is told must be what happened: each DMA's wait names the request and the issue time its
// start had (the waiter is often another helper than the starter, in shared buffers), every call
// is attributed to the helper whose thread made it (shared buffers are all owner 0's), and
// requests are told on their callers' threads.
#include <unistd.h>

#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "engine/engine_probe.hpp"
#include "engine/fake/host_staging_device.hpp"
#include "engine/measured_staging_device.hpp"
#include "engine/staging_engine.hpp"
#include "support/catch.hpp"
#include "support/copy_tags.hpp"

using namespace xfer;

namespace measured_device_test {  // named: the unit tests are a unity build

struct Dma {
    int helper = -1;
    int tid = 0;
    uint64_t request = 0;
    int64_t issued = 0;  // started: the call's end; waited: the issue time told
};

// Records every call with the kernel thread it came from.
class RecordingProbe : public EngineProbe {
  public:
    void helper_started(int helper) override {
        std::lock_guard lock(mutex);
        helper_tid[helper] = int(::gettid());
    }
    void dma_started(int helper, uint64_t request, int64_t, int64_t end) override {
        std::lock_guard lock(mutex);
        started.push_back({helper, int(::gettid()), request, end});
    }
    void dma_waited(int helper, uint64_t request, int64_t issued, int64_t, int64_t) override {
        std::lock_guard lock(mutex);
        waited.push_back({helper, int(::gettid()), request, issued});
    }
    void copied(int helper, uint64_t bytes, int64_t, int64_t) override {
        std::lock_guard lock(mutex);
        copies.push_back({helper, int(::gettid()), bytes, 0});
    }
    void request_started(uint64_t request, int64_t) override {
        std::lock_guard lock(mutex);
        arrived[request] = int(::gettid());
    }
    void request_finished(uint64_t request, int64_t, bool failed) override {
        std::lock_guard lock(mutex);
        returned[request] = int(::gettid());
        failures += failed;
    }

    std::mutex mutex;
    std::map<int, int> helper_tid;
    std::vector<Dma> started, waited, copies;  // copies: `request` holds the bytes
    std::map<uint64_t, int> arrived, returned;
    int failures = 0;
};

StagingConfig config_of(uint64_t dma) {
    StagingConfig c;
    c.threads = 3;
    c.buffers = 2;
    c.chunk = 4096;
    c.dma_chunk = dma;
    c.caller_starts = true;  // staging.start = "caller": a caller's own pieces are told too
    return c;
}

}  // namespace measured_device_test

TEST_CASE("measured device: the probe hears each DMA, wait and copy from the thread that made it",
          "[staging][measured]") {
    using namespace measured_device_test;
    for (uint64_t dma : {uint64_t(0), uint64_t(4 * 4096)}) {
        INFO("dma " << dma);
        const StagingConfig c = config_of(dma);
        auto probe = std::make_shared<RecordingProbe>();
        StagingEngine engine(
            c, measured_device(std::make_unique<HostStagingDevice>(staging_layout(c)), probe, c));
        engine.start();
        const uint64_t bytes = 10 * 4096 + 77;
        std::vector<std::vector<std::byte>> src(2, std::vector<std::byte>(bytes)),
            dev(2, std::vector<std::byte>(bytes)), back(2, std::vector<std::byte>(bytes));
        for (int w = 0; w < 2; ++w)
            for (uint64_t i = 0; i < bytes; ++i) src[size_t(w)][i] = std::byte(uint8_t(i + 31 * w));
        std::map<int, int> caller_tid;  // worker -> its thread
        std::mutex callers;
        std::vector<std::thread> workers;
        for (int w = 0; w < 2; ++w)
            workers.emplace_back([&, w] {
                {
                    std::lock_guard lock(callers);
                    caller_tid[w] = int(::gettid());
                }
                engine.to_device(dev[size_t(w)].data(), src[size_t(w)].data(), bytes);
                engine.from_device(back[size_t(w)].data(), dev[size_t(w)].data(), bytes);
            });
        for (auto& t : workers) t.join();
        engine.stop();
        for (int w = 0; w < 2; ++w) REQUIRE(back[size_t(w)] == src[size_t(w)]);

        const StagingTotals totals = engine.totals();
        REQUIRE(probe->helper_tid.size() == 3);
        // Every DMA started was waited for once, the wait told with its start's request and
        // issue time, and each by the helper whose thread made the call.
        CHECK(probe->started.size() == totals.chunks);
        CHECK(probe->waited.size() == totals.chunks);
        // A caller's own pieces (shared buffers: it fills part of its first unit) are told as
        // kCallerThread's, from a caller's thread; the DMAs are the helpers'.
        const std::set<int> caller_tids{caller_tid[0], caller_tid[1]};
        auto from_its_thread = [&](const Dma& d) {
            return d.helper == kCallerThread ? caller_tids.count(d.tid) == 1
                                             : probe->helper_tid[d.helper] == d.tid;
        };
        std::multiset<std::pair<uint64_t, int64_t>> starts, waits;
        for (const Dma& d : probe->started) {
            starts.insert({d.request, d.issued});
            CHECK(d.helper != kCallerThread);
            CHECK(from_its_thread(d));
        }
        for (const Dma& d : probe->waited) {
            waits.insert({d.request, d.issued});
            CHECK(d.helper != kCallerThread);  // the helpers wait, never a caller
            CHECK(from_its_thread(d));
        }
        CHECK(starts == waits);
        // The host copies: every byte once each way, by the thread that made them; with shared
        // buffers the first copy to the device to arrive (every buffer free) had its caller
        // copy at least its first piece (a later one finds none free where the helpers opened
        // them first).
        uint64_t copied = 0, by_callers = 0;
        for (const Dma& d : probe->copies) {
            copied += d.request;
            if (d.helper == kCallerThread) by_callers += d.request;
            CHECK(from_its_thread(d));
        }
        CHECK(copied == 4 * bytes);
        if (dma == 0)
            CHECK(by_callers == 0);
        else
            CHECK(by_callers >= 4096);
        // Four requests, each told on its caller's thread when it arrived and returned.
        CHECK(probe->arrived.size() == 4);
        CHECK(probe->returned.size() == 4);
        std::set<int> callers_seen;
        for (const auto& [request, tid] : probe->arrived) {
            CHECK(probe->returned[request] == tid);
            callers_seen.insert(tid);
        }
        CHECK(callers_seen == std::set<int>{caller_tid[0], caller_tid[1]});
        CHECK(probe->failures == 0);
    }
}

TEST_CASE("measured device: a DMA that failed to start is waited on without a word to the probe",
          "[staging][measured]") {
    using namespace measured_device_test;
    // Each helper its own buffers: a chunk whose start fails leaves its slot to be waited on
    // harmlessly; the probe must not hear a wait for a DMA it never heard start.
    const StagingConfig c = config_of(0);
    auto fake = std::make_unique<HostStagingDevice>(staging_layout(c));
    std::vector<std::byte> src(8 * 4096), dev(src.size());
    fake->fail_at = dev.data() + 3 * 4096 + 5;  // the fourth chunk's start fails
    auto probe = std::make_shared<RecordingProbe>();
    StagingEngine engine(c, measured_device(std::move(fake), probe, c));
    engine.start();
    CHECK_THROWS_WITH(engine.to_device(dev.data(), src.data(), src.size()),
                      Catch::Contains("chunk at offset 12288"));
    engine.stop();
    std::multiset<uint64_t> starts, waits;
    for (const Dma& d : probe->started) starts.insert(d.request);
    for (const Dma& d : probe->waited) waits.insert(d.request);
    CHECK(probe->started.size() < 8);
    CHECK(starts == waits);
    CHECK(probe->failures == 1);
}
