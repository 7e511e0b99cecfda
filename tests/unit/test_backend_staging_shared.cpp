// The staging engine's shared buffers (staging.dma): DMA-sized page-locked buffers that the
// helpers fill, or empty, together, a chunk each. Against the fake device whose DMA happens only
// when the engine waits for it, so a buffer refilled before its DMA, a piece copied twice or
// skipped, or a lost wake-up shows up as wrong bytes, a wrong count or a hang. (A failing DMA in
// shared buffers: test_backend_staging.cpp's failure test, with staging.dma.)
#include <chrono>
#include <cstring>
#include <fstream>
#include <functional>
#include <future>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "backend/host_staging_device.hpp"
#include "backend/staging_engine.hpp"
#include "support/catch.hpp"

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

// `workers` threads each copy `bytes` to the fake device and back through one engine.
void copy_both_ways(const StagingConfig& c, int workers, uint64_t bytes, bool page_locked) {
    auto fake_owner = std::make_unique<HostStagingDevice>(staging_layout(c));
    HostStagingDevice& fake = *fake_owner;
    std::vector<std::byte> device(bytes * uint64_t(workers));
    std::vector<int> landed(device.size(), 0);
    fake.landed = &landed;
    fake.landed_base = device.data();
    StagingEngine engine(c, std::move(fake_owner));
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
            engine.to_device(dev, sources[size_t(w)].data(), bytes, w, 100 + uint32_t(w),
                             page_locked);
            engine.from_device(back[size_t(w)].data(), dev, bytes, w, 200 + uint32_t(w),
                               page_locked);
        });
    for (auto& t : threads) t.join();
    engine.stop();

    INFO("threads " << c.threads << ", buffers " << c.buffers << ", chunk " << c.chunk << ", dma "
                    << c.dma_chunk << ", workers " << workers << ", bytes " << bytes
                    << ", page-locked " << page_locked << ", taper " << c.taper << ", ramp "
                    << c.ramp);
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
    // chunk (with ramp, the ranges staging_unit_length gives); page-locked memory is DMA'd in
    // place in one range per helper.
    const uint64_t per_helper = (bytes + uint64_t(c.threads) - 1) / uint64_t(c.threads);
    const uint64_t range =
        page_locked ? std::max<uint64_t>(c.chunk, (per_helper + 4095) / 4096 * 4096) : c.dma_chunk;
    uint64_t dmas = (bytes + range - 1) / range;
    if (!page_locked && c.ramp) {
        dmas = 0;
        for (uint64_t off = 0; off < bytes; ++dmas)
            off += staging_unit_length(off, bytes, range, true);
    }
    CHECK(engine.chunks_issued() == 2 * dmas * uint64_t(workers));
    CHECK(fake.bounced == (page_locked ? 0 : 2 * dmas * uint64_t(workers)));
    const auto aliases = engine.correlations();
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
    for (const auto& h : engine.helper_threads()) {
        copied += h.work.copied_bytes;
        int64_t busy = 0;
        for (const auto& [start, end] : h.busy) busy += end - start;
        CHECK(h.work.copy_ns + h.work.start_ns + h.work.wait_ns <= busy);
    }
    CHECK(copied == (page_locked ? 0 : 2 * bytes * uint64_t(workers)));
    const StagingTotals totals = engine.totals();
    CHECK(totals.to_device_bytes == bytes * uint64_t(workers));
    CHECK(totals.from_device_bytes == bytes * uint64_t(workers));
    CHECK(totals.chunks == 2 * dmas * uint64_t(workers));
}

struct Waited {
    int most_waiting = 0;               // the most helpers inside the device's wait() at once
    std::vector<HelperThread> helpers;  // their accounting
    uint64_t dmas = 0;                  // DMAs waited for (both ways)
    std::vector<int> tids;              // the helpers' kernel thread ids (engine still running)
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
    StagingEngine engine(c, std::move(fake_owner));
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
            engine.to_device(dev, sources[size_t(w)].data(), bytes, w, 0);
            engine.from_device(back[size_t(w)].data(), dev, bytes, w, 0);
        });
    for (auto& t : threads) t.join();
    Waited out;
    for (const auto& h : engine.helper_threads()) out.tids.push_back(h.thread.tid);
    if (after) after(out);
    engine.stop();
    for (int w = 0; w < workers; ++w) REQUIRE(back[size_t(w)] == sources[size_t(w)]);
    out.most_waiting = fake.most_waiting;
    out.helpers = engine.helper_threads();
    out.dmas = engine.chunks_issued();
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
        for (int mode = 0; mode < 4; ++mode) {
            c.taper = mode & 1;  // pieces cut over the helpers while no DMA runs
            c.ramp = mode & 2;   // shorter first and last DMAs, cut over the helpers
            for (uint64_t bytes :
                 {uint64_t(1), uint64_t(4095), uint64_t(4096 * 10 + 123), uint64_t(200001)}) {
                finishes_within(60, [&] { copy_both_ways(c, 1, bytes, false); });
                finishes_within(60, [&] { copy_both_ways(c, 4, bytes, false); });
                finishes_within(60, [&] { copy_both_ways(c, 4, bytes, true); });
            }
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

TEST_CASE("staging.taper with shared buffers: a piece is the buffer cut over the helpers",
          "[staging]") {
    const uint64_t KiB = 1024, MiB = KiB * KiB;
    CHECK(staging_piece_length(8 * MiB, 2 * MiB, 12, false) == 2 * MiB);
    CHECK(staging_piece_length(8 * MiB, 2 * MiB, 8, true) == 1 * MiB);
    CHECK(staging_piece_length(8 * MiB, 2 * MiB, 12, true) == 684 * KiB);  // whole pages
    CHECK(staging_piece_length(8 * MiB, 2 * MiB, 2, true) == 2 * MiB);     // never past a chunk
    CHECK(staging_piece_length(100 * KiB, 2 * MiB, 12, true) == kMinTaperPiece);
    CHECK(staging_piece_length(8 * MiB, 2 * MiB, 1, true) == 2 * MiB);
}

TEST_CASE("staging ramp: a copy's DMAs start at an eighth, double, and halve towards the end",
          "[staging]") {
    const uint64_t KiB = 1024, MiB = KiB * KiB, dma = 8 * MiB;
    for (uint64_t bytes : {uint64_t(1), 4095 * KiB, 1 * MiB, 9 * MiB + 5, 64 * MiB, 1024 * MiB + 3,
                           uint64_t(2048) * MiB}) {
        INFO("bytes " << bytes);
        std::vector<uint64_t> lens;
        for (uint64_t off = 0; off < bytes;) {
            lens.push_back(staging_unit_length(off, bytes, dma, true));
            REQUIRE(lens.back() > 0);
            off += lens.back();
            REQUIRE(off <= bytes);
        }
        for (size_t i = 0; i + 1 < lens.size(); ++i) {
            CHECK(lens[i] % 4096 == 0);
            CHECK(lens[i] <= dma);
            CHECK(lens[i] >= dma / kRampDivisor);
        }
        CHECK(lens.back() <= dma);
        CHECK(lens.front() == std::min(bytes, dma / kRampDivisor));
        if (bytes >= 64 * MiB) {
            CHECK(std::vector<uint64_t>(lens.begin(), lens.begin() + 5) ==
                  std::vector<uint64_t>{1 * MiB, 2 * MiB, 4 * MiB, 8 * MiB, 8 * MiB});
            // The end: each DMA half the rest (never larger than the one before), the last no
            // more than 1.5 eighths; at most log2(8) + 3 more DMAs than whole buffers.
            for (size_t i = lens.size() - 6; i + 1 < lens.size(); ++i)
                CHECK(lens[i + 1] <= lens[i]);
            CHECK(lens[lens.size() - 4] < dma);
            CHECK(lens[lens.size() - 2] <= dma / 4);
            CHECK(lens.back() <= dma / kRampDivisor * 3 / 2);
            CHECK(lens.size() <= bytes / dma + 6);
        }
    }
    // Without ramp: whole buffers, the rest at the end.
    CHECK(staging_unit_length(0, 20 * MiB, dma, false) == dma);
    CHECK(staging_unit_length(16 * MiB, 20 * MiB, dma, false) == 4 * MiB);
}

TEST_CASE("staging ramp: the short buffers go to every helper, full ones in chunks", "[staging]") {
    // 8 helpers, 1 MiB chunks, 8 MiB DMAs, one 64 MiB copy each way: the engine's pieces are
    // the ramp's short buffers cut over the 8 helpers plus the full buffers in 1 MiB chunks.
    const uint64_t KiB = 1024, MiB = KiB * KiB, bytes = 64 * MiB + 12345;
    StagingConfig c = shared_config(8, 2, MiB, 8 * MiB);
    c.ramp = true;
    uint64_t units = 0, pieces = 0;
    for (uint64_t off = 0; off < bytes; ++units) {
        const uint64_t len = staging_unit_length(off, bytes, c.dma_chunk, true);
        const uint64_t piece =
            len < c.dma_chunk ? staging_piece_length(len, c.chunk, c.threads, true) : c.chunk;
        pieces += (len + piece - 1) / piece;
        off += len;
    }
    auto fake_owner = std::make_unique<HostStagingDevice>(staging_layout(c));
    HostStagingDevice& fake = *fake_owner;
    StagingEngine engine(c, std::move(fake_owner));
    engine.start();
    const std::vector<std::byte> source = bytes_pattern(bytes, 9);
    std::vector<std::byte> device(bytes), back(bytes);
    finishes_within(60, [&] {
        engine.to_device(device.data(), source.data(), bytes, 0, 0);
        engine.from_device(back.data(), device.data(), bytes, 0, 0);
    });
    const StagingTotals totals = engine.totals();
    engine.stop();
    CHECK(back == source);
    CHECK(fake.violations == 0);
    CHECK(totals.chunks == 2 * units);
    CHECK(totals.pieces == 2 * pieces);
    CHECK(units > 8);  // 64 MiB in whole buffers would be 9 DMAs
    CHECK(pieces > units * 1);
}

TEST_CASE(
    "staging.taper with shared buffers: a buffer filled or emptied while no DMA runs goes to "
    "every helper",
    "[staging]") {
    // One request of exactly one DMA-sized buffer each way: nothing else is in flight, so with
    // taper its 4 MiB go to the 8 helpers in 512 KiB pieces, without it in 1 MiB chunks.
    const uint64_t MiB = uint64_t(1) << 20;
    for (bool taper : {false, true}) {
        StagingConfig c = shared_config(8, 2, MiB, 4 * MiB);
        c.taper = taper;
        auto fake_owner = std::make_unique<HostStagingDevice>(staging_layout(c));
        HostStagingDevice& fake = *fake_owner;
        StagingEngine engine(c, std::move(fake_owner));
        engine.start();
        const std::vector<std::byte> source = bytes_pattern(4 * MiB, 5);
        std::vector<std::byte> device(4 * MiB), back(4 * MiB);
        finishes_within(60, [&] {
            engine.to_device(device.data(), source.data(), 4 * MiB, 0, 0);
            engine.from_device(back.data(), device.data(), 4 * MiB, 0, 0);
        });
        const StagingTotals totals = engine.totals();
        engine.stop();
        INFO("taper " << taper);
        CHECK(back == source);
        CHECK(fake.violations == 0);
        CHECK(totals.chunks == 2);  // one DMA each way
        CHECK(totals.pieces == (taper ? 2 * 8 : 2 * 4));
        uint64_t copied = 0;
        for (const auto& h : engine.helper_threads()) copied += h.work.copied_bytes;
        CHECK(copied == 2 * 4 * MiB);
    }
}

TEST_CASE("staging: the link's wait for the helpers counts only while no DMA is running",
          "[staging]") {
    // One helper, 16 KiB DMAs, 16 MiB to the device: it fills a buffer while the one before is
    // in flight. A device that calls every DMA finished at once leaves the link waiting for each
    // fill (about half the copy: the fake's DMA is a memcpy as long as the fill); one that never
    // does leaves only the fill before the first DMA.
    const uint64_t bytes = uint64_t(16) << 20;
    const std::vector<std::byte> source = bytes_pattern(bytes, 4);
    for (bool reports : {false, true}) {
        INFO("DMAs reported finished at once: " << reports);
        StagingConfig c = shared_config(1, 2, 4096, 4 * 4096);
        auto fake_owner = std::make_unique<HostStagingDevice>(staging_layout(c));
        fake_owner->reports_finished = reports;
        StagingEngine engine(c, std::move(fake_owner));
        engine.start();
        std::vector<std::byte> device(bytes);
        const auto t0 = std::chrono::steady_clock::now();
        finishes_within(60, [&] { engine.to_device(device.data(), source.data(), bytes, 0, 0); });
        const int64_t wall = std::chrono::duration_cast<std::chrono::nanoseconds>(
                                 std::chrono::steady_clock::now() - t0)
                                 .count();
        const StagingTotals totals = engine.totals();
        engine.stop();
        CHECK(device == source);
        CHECK(totals.link_starved_ns <= wall);
        if (reports)
            CHECK(totals.link_starved_ns > wall / 4);
        else
            CHECK(totals.link_starved_ns <= totals.to_first_dma_ns);
    }
}

TEST_CASE("staging linger: idle helpers stay awake that long after a copy, then sleep",
          "[staging]") {
    StagingConfig c = shared_config(4, 1, 4096, 2 * 4096);
    c.idle_spin = true;
    c.linger_ns = 300'000'000;  // 300 ms
    // Sampled every 5 ms: a spinning helper is runnable whether or not it has a CPU (CPU time
    // would depend on the machine's other load), a sleeping one is not.
    int samples = 0, awake_during = 0, awake_after = 0;
    finishes_within(60, [&] {
        copy_with_slow_dmas(c, 1, 8 * 2 * 4096, std::chrono::microseconds(200),
                            [&](Waited& running) {
                                auto any_awake = [&] {
                                    for (int tid : running.tids)
                                        if (thread_state(tid) == 'R') return true;
                                    return false;
                                };
                                for (int i = 0; i < 20; ++i, ++samples) {  // 100 ms
                                    awake_during += any_awake();
                                    std::this_thread::sleep_for(std::chrono::milliseconds(5));
                                }
                                std::this_thread::sleep_for(std::chrono::milliseconds(300));
                                for (int i = 0; i < 30; ++i) {
                                    awake_after += any_awake();
                                    std::this_thread::sleep_for(std::chrono::milliseconds(5));
                                }
                            });
    });
    // Within the 300 ms after the copy the helpers spin; from 400 ms on they sleep.
    CHECK(samples == 20);
    CHECK(awake_during >= 15);
    CHECK(awake_after == 0);
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
        StagingEngine engine(c, std::move(fake_owner));
        engine.start();
        const uint64_t bytes = dma > 0 ? dma : 4096;  // one DMA
        const std::vector<std::byte> source = bytes_pattern(bytes, 3);
        std::vector<std::byte> device(bytes), back(bytes);
        for (bool to_device : {true, false}) {
            INFO("dma " << dma << (to_device ? ", to the device" : ", from the device"));
            const StagingTotals before = engine.totals();
            const auto t0 = std::chrono::steady_clock::now();
            finishes_within(60, [&] {
                if (to_device)
                    engine.to_device(device.data(), source.data(), bytes, 0, 0);
                else
                    engine.from_device(back.data(), device.data(), bytes, 0, 0);
            });
            const int64_t wall = std::chrono::duration_cast<std::chrono::nanoseconds>(
                                     std::chrono::steady_clock::now() - t0)
                                     .count();
            const StagingTotals after = engine.totals();
            const int64_t first = after.to_first_dma_ns - before.to_first_dma_ns;
            const int64_t last = after.after_last_dma_ns - before.after_last_dma_ns;
            const int64_t span = after.dma_span_ns - before.dma_span_ns;
            const int64_t starved = after.link_starved_ns - before.link_starved_ns;
            CHECK(after.edged == before.edged + 1);
            CHECK(span >= std::chrono::nanoseconds(delay).count());
            CHECK(first + span + last <= wall);
            // One buffer: the link waits for the helpers only while they fill it (inside the
            // time before the DMA) or empty it (after); never while the DMA runs.
            CHECK(starved >= 0);
            if (dma == 0) CHECK(starved == 0);  // own buffers: not tracked
            CHECK(starved <= (to_device ? first : last));
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
