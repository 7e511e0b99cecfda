// The staging engine's shared buffers (staging.dma): DMA-sized page-locked buffers that the
// helpers fill, or empty, together, a chunk each. Against the fake device whose DMA happens only
// when the engine waits for it, so a buffer refilled before its DMA, a piece copied twice or
// skipped, or a lost wake-up shows up as wrong bytes, a wrong count or a hang. (A failing DMA in
// shared buffers: test_engine_staging.cpp's failure test, with staging.dma.)
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <functional>
#include <future>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "backend/staging_probe.hpp"
#include "engine/fake/host_staging_device.hpp"
#include "engine/measured_staging_device.hpp"
#include "engine/staging_engine.hpp"
#include "engine/stats_probe.hpp"
#include "support/catch.hpp"
#include "support/copy_tags.hpp"

using namespace xfer;

namespace shared_staging_test {  // named: the unit tests are a unity build

std::vector<std::byte> bytes_pattern(uint64_t n, int seed) {
    std::vector<std::byte> v(n);
    for (uint64_t i = 0; i < n; ++i) v[i] = std::byte(uint8_t(i * 151 + uint64_t(seed) * 29 + 3));
    return v;
}

template <typename F>
void finishes_within(int seconds, F f) {
    auto done = std::async(std::launch::async, f);
    REQUIRE(done.wait_for(std::chrono::seconds(seconds)) == std::future_status::ready);
    done.get();
}

StagingConfig shared_config(int threads, int buffers, uint64_t chunk, uint64_t dma) {
    StagingConfig c;
    c.device = 0;
    c.threads = threads;
    c.buffers = buffers;
    c.chunk = chunk;
    c.dma_chunk = dma;
    return c;
}

// The pieces copied of one bounced request of `bytes`: each DMA-sized range in chunks, the first
// range to the device (its caller fills it with the helpers) in quarter chunks of at least 64 KiB.
uint64_t pieces_of(const StagingConfig& c, uint64_t bytes, bool to_device) {
    uint64_t pieces = 0;
    for (uint64_t at = 0; at < bytes; at += c.dma_chunk) {
        const uint64_t len = std::min(c.dma_chunk, bytes - at);
        uint64_t piece = c.chunk;
        if (at == 0 && to_device && c.caller_starts && c.chunk > (64u << 10))
            piece = std::max<uint64_t>(64u << 10, (c.chunk / 4 + 4095) / 4096 * 4096);
        pieces += (len + piece - 1) / piece;
    }
    return pieces;
}

// `workers` threads each copy `bytes` to the fake device and back through one engine.
void copy_both_ways(const StagingConfig& c, int workers, uint64_t bytes, bool page_locked) {
    auto fake_owner = std::make_unique<HostStagingDevice>(staging_layout(c));
    HostStagingDevice& fake = *fake_owner;
    std::vector<std::byte> device(bytes * uint64_t(workers));
    std::vector<int> landed(device.size(), 0);
    fake.landed = &landed;
    fake.landed_base = device.data();
    auto probe = std::make_shared<HarnessProbe>(c.threads, test::fake_sources());
    StagingEngine engine(c, measured_device(std::move(fake_owner), probe, c));
    engine.start();
    std::vector<std::vector<std::byte>> sources, back;
    for (int w = 0; w < workers; ++w) {
        sources.push_back(bytes_pattern(bytes, w));
        back.emplace_back(bytes, std::byte{0});
    }
    std::vector<std::thread> threads;
    for (int w = 0; w < workers; ++w)
        threads.emplace_back([&, w] {
            std::byte* dev = device.data() + uint64_t(w) * bytes;
            test::tag_copies(100 + uint32_t(w));
            engine.to_device(dev, sources[size_t(w)].data(), bytes, page_locked);
            test::tag_copies(200 + uint32_t(w));
            engine.from_device(back[size_t(w)].data(), dev, bytes, page_locked);
        });
    for (auto& t : threads) t.join();
    engine.stop();

    INFO("threads " << c.threads << ", buffers " << c.buffers << ", chunk " << c.chunk << ", dma "
                    << c.dma_chunk << ", workers " << workers << ", bytes " << bytes
                    << ", page-locked " << page_locked);
    CHECK(fake.violations == 0);
    CHECK(fake.dma_bytes == 2 * bytes * uint64_t(workers));
    size_t not_once = 0;
    for (int n : landed) not_once += n != 1;
    CHECK(not_once == 0);
    for (int w = 0; w < workers; ++w) {
        CHECK(std::memcmp(device.data() + uint64_t(w) * bytes, sources[size_t(w)].data(), bytes) ==
              0);
        CHECK(back[size_t(w)] == sources[size_t(w)]);
    }
    // One DMA per DMA-sized range of a bounced request: its length is staging.dma, not the
    // chunk; page-locked memory is DMA'd in place in one range per helper.
    const uint64_t per_helper = (bytes + uint64_t(c.threads) - 1) / uint64_t(c.threads);
    const uint64_t range =
        page_locked ? std::max<uint64_t>(c.chunk, (per_helper + 4095) / 4096 * 4096) : c.dma_chunk;
    const uint64_t dmas = (bytes + range - 1) / range;
    // DMAs started by the helpers alone; pieces copied by them and by the callers.
    const ProbeTotals started = probe->totals();
    CHECK(started.work.chunks == 2 * dmas * uint64_t(workers));
    CHECK(started.callers.chunks == 0);
    CHECK(fake.bounced == (page_locked ? 0 : 2 * dmas * uint64_t(workers)));
    const auto aliases = probe->correlations();
    for (int w = 0; w < workers; ++w) {
        uint64_t up = 0, down = 0;
        for (const auto& [id, tag] : aliases) {
            up += tag == 100 + uint32_t(w);
            down += tag == 200 + uint32_t(w);
        }
        CHECK(up == dmas);
        CHECK(down == dmas);
    }
    // The helpers' copies: every bounced byte once each way, time inside their busy spans.
    uint64_t copied = 0;
    for (const auto& h : probe->helper_threads()) {
        copied += h.work.copied_bytes;
        int64_t busy = 0;
        for (const auto& [start, end] : h.busy) busy += end - start;
        CHECK(h.work.copy_ns + h.work.start_ns + h.work.wait_ns <= busy);
    }
    CHECK(copied + started.callers.copied_bytes ==
          (page_locked ? 0 : 2 * bytes * uint64_t(workers)));
    const StagingTotals totals = engine.totals();
    CHECK(totals.to_device_bytes == bytes * uint64_t(workers));
    CHECK(totals.from_device_bytes == bytes * uint64_t(workers));
    CHECK(totals.chunks == 2 * dmas * uint64_t(workers));
    CHECK(totals.pieces == (page_locked ? 0
                                        : (pieces_of(c, bytes, true) + pieces_of(c, bytes, false)) *
                                              uint64_t(workers)));
}

struct Waited {
    int most_waiting = 0;               // the most helpers inside the device's wait() at once
    std::vector<HelperThread> helpers;  // their accounting
    uint64_t dmas = 0;                  // DMAs waited for (both ways)
    std::vector<int> tids;              // the helpers' kernel thread ids (engine still running)
    ProbeTotals probe;                  // what the probe summed
};

// `workers` threads copy `bytes` each to the fake device and back through one engine whose
// every DMA takes `delay` to finish; the bytes must arrive. `after` runs before the engine stops.
Waited copy_with_slow_dmas(StagingConfig c, int workers, uint64_t bytes,
                           std::chrono::microseconds delay,
                           const std::function<void(Waited&)>& after = {}) {
    auto fake_owner = std::make_unique<HostStagingDevice>(staging_layout(c));
    HostStagingDevice& fake = *fake_owner;
    fake.wait_delay = delay;
    std::vector<std::byte> device(bytes * uint64_t(workers));
    auto probe = std::make_shared<HarnessProbe>(c.threads, CorrelatingProbe::Sources{});
    StagingEngine engine(c, measured_device(std::move(fake_owner), probe, c));
    engine.start();
    std::vector<std::vector<std::byte>> sources, back;
    for (int w = 0; w < workers; ++w) {
        sources.push_back(bytes_pattern(bytes, w + 7));
        back.emplace_back(bytes, std::byte{0});
    }
    std::vector<std::thread> threads;
    for (int w = 0; w < workers; ++w)
        threads.emplace_back([&, w] {
            std::byte* dev = device.data() + uint64_t(w) * bytes;
            engine.to_device(dev, sources[size_t(w)].data(), bytes);
            engine.from_device(back[size_t(w)].data(), dev, bytes);
        });
    for (auto& t : threads) t.join();
    Waited out;
    for (const auto& h : probe->helper_threads()) out.tids.push_back(h.thread.tid);
    if (after) after(out);
    engine.stop();
    for (int w = 0; w < workers; ++w) REQUIRE(back[size_t(w)] == sources[size_t(w)]);
    out.most_waiting = fake.most_waiting;
    out.helpers = probe->helper_threads();
    out.dmas = engine.totals().chunks;
    out.probe = probe->totals();
    return out;
}

// CPU time (user + system, clock ticks) the kernel has charged to thread `tid` of this process.
long thread_cpu_ticks(int tid) {
    std::ifstream in("/proc/self/task/" + std::to_string(tid) + "/stat");
    std::string line;
    std::getline(in, line);
    std::istringstream fields(line.substr(line.rfind(')') + 2));  // after "pid (comm) "
    std::string field;
    long ticks = 0;
    for (int i = 3; fields >> field; ++i)  // field 3 is the state; 14 utime, 15 stime
        if (i == 14 || i == 15) ticks += std::stol(field);
    return ticks;
}

// The scheduler's state of thread `tid` of this process: 'R' running or runnable (a spinning
// thread is, however busy the machine), 'S' asleep, ...
char thread_state(int tid) {
    std::ifstream in("/proc/self/task/" + std::to_string(tid) + "/stat");
    std::string line;
    std::getline(in, line);
    const size_t close = line.rfind(')');
    return close == std::string::npos || close + 2 >= line.size() ? '?' : line[close + 2];
}

}  // namespace shared_staging_test

using namespace shared_staging_test;

TEST_CASE("staging.dma: shared buffers as many as the helpers' own would hold, at least two",
          "[staging]") {
    const uint64_t MiB = uint64_t(1) << 20;
    StagingLayout l = staging_layout(shared_config(12, 2, 4 * MiB, 16 * MiB));
    CHECK((l.owners == 1 && l.slots == 6 && l.bytes == 16 * MiB));
    l = staging_layout(shared_config(1, 1, 4 * MiB, 64 * MiB));
    CHECK((l.owners == 1 && l.slots == 2 && l.bytes == 64 * MiB));
    // No larger than a chunk: each helper's own buffers, as without staging.dma.
    StagingConfig own = shared_config(3, 2, 4 * MiB, 4 * MiB);
    own.chunk_from_device = 8 * MiB;
    l = staging_layout(own);
    CHECK(!staging_shares_buffers(own));
    CHECK((l.owners == 3 && l.slots == 2 && l.bytes == 8 * MiB));
}

TEST_CASE("staging.dma: helpers filling shared buffers move every byte once, one DMA per range",
          "[staging]") {
    for (StagingConfig c : {shared_config(1, 1, 4096, 8192), shared_config(3, 2, 4096, 3 * 4096),
                            shared_config(4, 2, 5000, 20000), shared_config(6, 1, 4096, 5 * 4096),
                            shared_config(6, 1, 256 << 10, 1 << 20)}) {
        for (uint64_t bytes :
             {uint64_t(1), uint64_t(4095), uint64_t(4096 * 10 + 123), uint64_t(200001)}) {
            finishes_within(60, [&] { copy_both_ways(c, 1, bytes, false); });
            finishes_within(60, [&] { copy_both_ways(c, 4, bytes, false); });
            finishes_within(60, [&] { copy_both_ways(c, 4, bytes, true); });
        }
    }
}

TEST_CASE("staging.dma: one helper at a time waits for a DMA, whether idle helpers spin or sleep",
          "[staging]") {
    // Three DMA-sized buffers, six helpers, four workers: with a waiter per DMA in flight, three
    // helpers would sit in wait() at once (each on a later DMA than the one before).
    for (bool spin : {true, false}) {
        StagingConfig c = shared_config(6, 2, 4096, 4 * 4096);
        c.idle_spin = spin;
        REQUIRE(staging_layout(c).slots == 3);
        Waited w;
        finishes_within(60, [&] {
            w = copy_with_slow_dmas(c, 4, 24 * 4096 + 100, std::chrono::microseconds(300));
        });
        INFO("idle helpers " << (spin ? "spin" : "sleep"));
        CHECK(w.dmas == 2 * 4 * 7);  // 7 DMAs of 16 KiB (the last shorter) per worker and way
        CHECK(w.most_waiting == 1);
    }
}

TEST_CASE(
    "staging.dma: spinning helpers count the spin as waiting for DMAs, and sleep once the "
    "copies are done",
    "[staging]") {
    // Two DMA-sized buffers and four helpers: while one helper waits for a DMA, at least one
    // other has nothing to take until that DMA ends.
    StagingConfig c = shared_config(4, 1, 4096, 2 * 4096);
    c.idle_spin = true;
    REQUIRE(staging_layout(c).slots == 2);
    const auto delay = std::chrono::milliseconds(2);
    long spun_ticks = -1;
    Waited w;
    finishes_within(60, [&] {
        w = copy_with_slow_dmas(c, 1, 16 * 2 * 4096, delay, [&](Waited& running) {
            // The copies are done and the engine is still running: its helpers must be asleep.
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
            long before = 0, after = 0;
            for (int tid : running.tids) before += thread_cpu_ticks(tid);
            std::this_thread::sleep_for(std::chrono::milliseconds(400));
            for (int tid : running.tids) after += thread_cpu_ticks(tid);
            spun_ticks = after - before;
        });
    });
    REQUIRE(w.dmas == 2 * 16);
    int64_t waited = 0, busy = 0;
    for (const auto& h : w.helpers) {
        waited += h.work.wait_ns;
        for (const auto& [start, end] : h.busy) busy += end - start;
    }
    const int64_t dma_time = int64_t(w.dmas) * std::chrono::nanoseconds(delay).count();
    // The waiter alone waits dma_time; the helpers spinning meanwhile add at least as much.
    CHECK(waited >= 2 * dma_time);
    CHECK(waited <= busy);
    // Four spinning helpers would be charged about 400 ms each (40 ticks at 100 Hz).
    CHECK(spun_ticks >= 0);
    CHECK(spun_ticks <= 4);
}

TEST_CASE("staging: the link's wait for the helpers is the time no DMA was in flight",
          "[staging]") {
    // One helper, two 16 KiB buffers, DMAs of 20 ms (the fake's wait() sleeps): it fills and
    // starts the next buffer while a DMA is in flight, so after the first DMA some DMA is in
    // flight until the last is seen done. The link then waited exactly during the fill before
    // the first DMA and after the last; the probe derives it from the DMAs' issue and done times.
    StagingConfig c = shared_config(1, 8, 4096, 4 * 4096);
    REQUIRE(staging_layout(c).slots == 2);
    Waited w;
    finishes_within(
        60, [&] { w = copy_with_slow_dmas(c, 1, 8 * 4 * 4096, std::chrono::milliseconds(20)); });
    const ProbeTotals& t = w.probe;
    CHECK(t.edged == 2);
    CHECK(t.link_starved_ns == t.to_first_dma_ns + t.after_last_dma_ns);
    CHECK(t.dma_span_ns >= 2 * 8 * 20'000'000);  // both ways' DMAs, one after the other
    CHECK(t.link_starved_ns < t.in_engine_ns);
}

TEST_CASE("staging: a copy's edges are the time before its first DMA and after its last",
          "[staging]") {
    // Every DMA of the fake takes 200 ms inside wait(): a copy lasts at least that, but neither
    // edge holds it (a DMA's end is taken when its wait returns): the span between them does,
    // with shared buffers or not; nor does the time the link waited for the helpers.
    const auto delay = std::chrono::milliseconds(200);
    for (uint64_t dma : {uint64_t(0), uint64_t(4 * 4096)}) {
        StagingConfig c = shared_config(3, 2, 4096, dma);
        auto fake_owner = std::make_unique<HostStagingDevice>(staging_layout(c));
        fake_owner->wait_delay = delay;
        auto probe = std::make_shared<StatsProbe>(c.threads);
        StagingEngine engine(c, measured_device(std::move(fake_owner), probe, c));
        engine.start();
        const uint64_t bytes = dma > 0 ? dma : 4096;  // one DMA
        const std::vector<std::byte> source = bytes_pattern(bytes, 3);
        std::vector<std::byte> device(bytes), back(bytes);
        for (bool to_device : {true, false}) {
            INFO("dma " << dma << (to_device ? ", to the device" : ", from the device"));
            const ProbeTotals before = probe->totals();
            const auto t0 = std::chrono::steady_clock::now();
            finishes_within(60, [&] {
                if (to_device)
                    engine.to_device(device.data(), source.data(), bytes);
                else
                    engine.from_device(back.data(), device.data(), bytes);
            });
            const int64_t wall = std::chrono::duration_cast<std::chrono::nanoseconds>(
                                     std::chrono::steady_clock::now() - t0)
                                     .count();
            const ProbeTotals after = probe->totals();
            const int64_t first = after.to_first_dma_ns - before.to_first_dma_ns;
            const int64_t last = after.after_last_dma_ns - before.after_last_dma_ns;
            const int64_t span = after.dma_span_ns - before.dma_span_ns;
            const int64_t starved = after.link_starved_ns - before.link_starved_ns;
            CHECK(after.edged == before.edged + 1);
            CHECK(span >= std::chrono::nanoseconds(delay).count());
            CHECK(first + span + last <= wall);
            // One DMA: the link waits for the helpers while they fill its buffer (the time
            // before it) and empty it (after); never while it runs.
            CHECK(starved == first + last);
            CHECK(wall >= std::chrono::nanoseconds(delay).count());
            CHECK(first >= 0);
            CHECK(last >= 0);
            CHECK(first < std::chrono::nanoseconds(delay).count() / 2);
            CHECK(last < std::chrono::nanoseconds(delay).count() / 2);
        }
        engine.stop();
        CHECK(back == source);
    }
}

namespace shared_staging_test {

// Each helper's kernel thread id, read on the helper's own thread.
class TidProbe : public EngineProbe {
  public:
    explicit TidProbe(int helpers) : tids_(size_t(helpers), 0) {}
    void helper_started(int helper) override {
        std::lock_guard lock(mutex_);
        tids_[size_t(helper)] = int(::gettid());
    }
    int tid(int helper) const {
        std::lock_guard lock(mutex_);
        return tids_[size_t(helper)];
    }

  private:
    mutable std::mutex mutex_;
    std::vector<int> tids_;
};

// The times the thread `tid` of this process has gone to sleep (voluntary context switches).
long sleeps_of(int tid) {
    std::ifstream in("/proc/self/task/" + std::to_string(tid) + "/status");
    std::string line;
    while (std::getline(in, line))
        if (line.rfind("voluntary_ctxt_switches:", 0) == 0) return std::stol(line.substr(24));
    return -1;
}

}  // namespace shared_staging_test

TEST_CASE(
    "staging.dma: helpers an auto engine keeps out sleep through the copies, not woken by "
    "every piece",
    "[staging][shared]") {
    using namespace shared_staging_test;
    // Six helpers, two let in (as the registry does when three engines share the CPUs); 128
    // pieces each way. A helper kept out that woke for every piece's news would sleep again about
    // as often (218-254 times here before the fix): on a 16-CPU H200 host four processes of
    // twelve such helpers, three let in each, ran at 0.38x the page-locked rate where three
    // helpers each ran at 0.96x (docs/results/h200-module.md).
    StagingConfig c = shared_config(6, 2, 64 << 10, 512 << 10);
    c.active_helpers = [] { return 2; };
    auto probe = std::make_shared<TidProbe>(c.threads);
    StagingEngine engine(
        c, measured_device(std::make_unique<HostStagingDevice>(staging_layout(c)), probe, c));
    engine.start();
    const uint64_t bytes = 8 << 20;
    std::vector<std::byte> device(bytes), source = bytes_pattern(bytes, 1), back(bytes);
    engine.to_device(device.data(), source.data(), bytes);  // lets two in
    std::vector<long> before;
    for (int h = 2; h < c.threads; ++h) before.push_back(sleeps_of(probe->tid(h)));
    for (int k = 0; k < 4; ++k) {
        engine.to_device(device.data(), source.data(), bytes);
        engine.from_device(back.data(), device.data(), bytes);
    }
    CHECK(back == source);
    for (int h = 2; h < c.threads; ++h) {
        INFO("helper " << h);
        REQUIRE(before[size_t(h - 2)] >= 0);
        CHECK(sleeps_of(probe->tid(h)) - before[size_t(h - 2)] <= 2);
    }
    engine.stop();
}

TEST_CASE(
    "staging.dma: an engine kept to fewer helpers keeps no more DMAs in flight than their "
    "buffers would hold",
    "[staging][shared]") {
    using namespace shared_staging_test;
    // 12 helpers of 2 buffers of 4 KiB: 6 DMA buffers of 16 KiB. Let 3 in (as an auto engine
    // sharing the CPUs with three others): their buffers hold 24 KiB, so 2 DMAs at a time, as an
    // engine of 3 helpers has. The fake's DMAs last 2 ms each, so more would pile up if let.
    for (const int let_in : {3, 12}) {
        INFO("helpers let in: " << let_in);
        StagingConfig c = shared_config(12, 2, 4096, 4 * 4096);
        c.active_helpers = [let_in] { return let_in; };
        auto fake_owner = std::make_unique<HostStagingDevice>(staging_layout(c));
        HostStagingDevice& fake = *fake_owner;
        fake.wait_delay = std::chrono::milliseconds(2);
        StagingEngine engine(c, std::move(fake_owner));
        REQUIRE(staging_layout(c).slots == 6);
        engine.start();
        const uint64_t bytes = 64 * 4096;
        std::vector<std::byte> device(bytes), source = bytes_pattern(bytes, 5), back(bytes);
        finishes_within(60, [&] {
            engine.to_device(device.data(), source.data(), bytes);
            engine.from_device(back.data(), device.data(), bytes);
        });
        engine.stop();
        CHECK(back == source);
        if (let_in == 3)
            CHECK(fake.most_in_flight <= 2);
        else
            CHECK(fake.most_in_flight > 2);  // all six may be used when every helper takes work
    }
}

TEST_CASE("staging.lock: with block a thread finding the engine's lock taken sleeps every time, "
          "with a budget it took the lock trying; both move every byte once",
          "[staging]") {
    // Six helpers and four callers on the engine's one lock, many acquisitions each: found taken
    // again and again (on any machine: ten threads, a few hundred pieces).
    for (int64_t budget : {int64_t(0), int64_t(30) * 1'000'000'000}) {
        StagingConfig c = shared_config(6, 1, 4096, 4 * 4096);
        c.lock_spin_ns = budget;
        INFO("lock budget " << budget << " ns");
        finishes_within(60, [&] { copy_both_ways(c, 4, 200001, false); });
        StagingEngine engine(c, std::make_unique<HostStagingDevice>(staging_layout(c)));
        engine.start();
        std::vector<std::byte> device(4 * 300000);
        std::vector<std::thread> callers;
        for (int w = 0; w < 4; ++w)
            callers.emplace_back([&, w] {
                const std::vector<std::byte> src = bytes_pattern(300000, w);
                for (int k = 0; k < 8; ++k)
                    engine.to_device(device.data() + w * 300000, src.data(), src.size());
            });
        for (auto& t : callers) t.join();
        engine.stop();
        const StagingTotals t = engine.totals();
        REQUIRE(t.lock_contended > 0);
        if (budget == 0)
            CHECK(t.lock_slept == t.lock_contended);
        else
            CHECK(t.lock_slept == 0);  // 30 s: every holder let go long before
        for (int w = 0; w < 4; ++w)
            CHECK(std::memcmp(device.data() + w * 300000, bytes_pattern(300000, w).data(),
                              300000) == 0);
    }
}

TEST_CASE("wake = \"call\": a heads-up wakes the helpers let in, which spin until its deadline "
          "and then sleep again",
          "[staging][shared]") {
    // Three helpers, two let in; a heads-up of 200 ms. The probe records each spin when it ends
    // (HelperWork::wait_ns, wall-clock time from its start): a spin recorded with no copy asked
    // for and the engine running ended at its deadline. (Not CPU time: a spinner yields, and on
    // a loaded machine gets next to none.)
    StagingConfig c = shared_config(3, 2, 64 << 10, 512 << 10);
    c.active_helpers = [] { return 2; };
    c.expect_spin_ns = 200'000'000;
    auto probe = std::make_shared<StatsProbe>(c.threads);
    StagingEngine engine(
        c, measured_device(std::make_unique<HostStagingDevice>(staging_layout(c)), probe, c));
    engine.start();
    const uint64_t bytes = 2 << 20;
    std::vector<std::byte> device(bytes), source = bytes_pattern(bytes, 3);
    engine.to_device(device.data(), source.data(), bytes);  // lets two in
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    auto spun = [&] {
        std::vector<int64_t> t;
        for (int h = 0; h < c.threads; ++h) t.push_back(probe->helper_work(h).wait_ns);
        return t;
    };
    const std::vector<int64_t> before = spun();
    engine.expect_copy();
    engine.expect_copy();  // inside the first one's window: wakes nobody again
    CHECK(engine.totals().heads_ups == 1);
    std::this_thread::sleep_for(std::chrono::milliseconds(1000));
    const std::vector<int64_t> woken = spun();
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    const std::vector<int64_t> after = spun();
    for (int h = 0; h < c.threads; ++h) {
        INFO("helper " << h);
        if (h < 2)
            CHECK(woken[size_t(h)] > before[size_t(h)]);  // spun for the copy, and stopped
        else
            CHECK(woken[size_t(h)] == before[size_t(h)]);  // kept out: not woken
        CHECK(after[size_t(h)] == woken[size_t(h)]);       // no spin since: asleep
    }
    // A copy after a heads-up arrives as any other.
    const std::vector<std::byte> next = bytes_pattern(bytes, 4);
    engine.expect_copy();
    engine.to_device(device.data(), next.data(), bytes);
    CHECK(device == next);
    CHECK(engine.totals().heads_ups == 2);
    engine.stop();
}

TEST_CASE("wake = \"arrival\", or helpers that sleep while they wait: a heads-up does nothing",
          "[staging][shared]") {
    for (bool arrival : {true, false}) {
        StagingConfig c = shared_config(2, 2, 64 << 10, 512 << 10);
        if (arrival)
            c.expect_spin_ns = 0;
        else
            c.idle_spin = false;
        StagingEngine engine(c, std::make_unique<HostStagingDevice>(staging_layout(c)));
        engine.start();
        engine.expect_copy();
        CHECK(engine.totals().heads_ups == 0);
        engine.stop();
    }
}
