// The staging engine's chunking and scheduling against a fake device whose DMA happens only when
// the engine waits for it: a buffer reused before its DMA finished, a chunk issued twice or
// skipped, or a lost wake-up all show up as wrong bytes, a wrong count or a hang.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <future>
#include <mutex>
#include <numeric>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "backend/host_staging_device.hpp"
#include "backend/staging_engine.hpp"
#include "util/clock.hpp"
#include "support/catch.hpp"
#include "support/text.hpp"

using namespace xfer;
using xfer::test::contains;

namespace {

// "Device memory" is host memory; each DMA is remembered at start and performed at wait().
using FakeDevice = HostStagingDevice;

std::vector<std::byte> pattern(uint64_t n, int seed) {
    std::vector<std::byte> v(n);
    for (uint64_t i = 0; i < n; ++i) v[i] = std::byte(uint8_t(i * 131 + uint64_t(seed) * 17 + 1));
    return v;
}

struct Setup {
    int threads;
    int buffers;
    uint64_t chunk;
    HostStores stores = HostStores::cached;  // both directions' helper copies
    bool taper = false;
    uint64_t page_locked_chunk = 0;  // StagingConfig::page_locked_chunk
};

// `workers` threads each copy `bytes` through one engine, both directions; returns the engine's
// fake for its counters.
void copy_both_ways(const Setup& s, int workers, uint64_t bytes, bool page_locked = false) {
    auto fake_owner = std::make_unique<FakeDevice>(s.threads, s.buffers, s.chunk);
    FakeDevice& fake = *fake_owner;
    std::vector<std::byte> device(bytes * uint64_t(workers));
    std::vector<int> landed(device.size(), 0);
    fake.landed = &landed;
    fake.landed_base = device.data();
    StagingEngine engine(
        {0, s.threads, s.buffers, s.chunk, {}, s.stores, s.stores, s.taper, s.page_locked_chunk},
        std::move(fake_owner));
    const int64_t before = now_ns();
    engine.start();

    std::vector<std::vector<std::byte>> sources, back;
    for (int w = 0; w < workers; ++w) {
        sources.push_back(pattern(bytes, w));
        back.emplace_back(bytes, std::byte{0});
    }
    std::vector<std::thread> threads;
    for (int w = 0; w < workers; ++w) {
        threads.emplace_back([&, w] {
            std::byte* dev = device.data() + uint64_t(w) * bytes;
            engine.to_device(dev, sources[size_t(w)].data(), bytes, w, 1000 + uint32_t(w),
                             page_locked);
            engine.from_device(back[size_t(w)].data(), dev, bytes, w, 2000 + uint32_t(w),
                               page_locked);
        });
    }
    for (auto& t : threads) t.join();
    engine.stop();
    const int64_t after = now_ns();

    INFO("threads " << s.threads << ", buffers " << s.buffers << ", chunk " << s.chunk << ", "
                    << to_string(s.stores) << " stores, workers " << workers << ", bytes " << bytes
                    << ", page-locked " << page_locked);
    CHECK(fake.violations == 0);
    CHECK(fake.dma_bytes == 2 * bytes * uint64_t(workers));
    for (int w = 0; w < workers; ++w) {
        CHECK(std::memcmp(device.data() + uint64_t(w) * bytes, sources[size_t(w)].data(), bytes) ==
              0);
        CHECK(back[size_t(w)] == sources[size_t(w)]);
    }
    size_t not_once = 0;
    for (int n : landed) not_once += n != 1;
    CHECK(not_once == 0);
    // Every chunk's correlation id maps to its request: ceil(bytes / chunk) per request.
    // Page-locked memory is DMA'd in place in one chunk per helper (at least the configured
    // size) unless its own chunk size is given; pageable memory always through a buffer, chunk
    // by chunk.
    const uint64_t per_helper = (bytes + uint64_t(s.threads) - 1) / uint64_t(s.threads);
    uint64_t chunk = s.chunk;
    if (page_locked)
        chunk = s.page_locked_chunk > 0
                    ? s.page_locked_chunk
                    : std::max<uint64_t>(s.chunk, (per_helper + 4095) / 4096 * 4096);
    uint64_t chunks = 0;  // as staging_chunk_length cuts the copy (its own test checks the cut)
    for (uint64_t at = 0; at < bytes; ++chunks)
        at += staging_chunk_length(at, bytes, chunk, s.threads, s.taper && !page_locked);
    CHECK(fake.bounced == (page_locked ? 0 : 2 * chunks * uint64_t(workers)));
    auto aliases = engine.correlations();
    CHECK(engine.chunks_issued() == 2 * chunks * uint64_t(workers));
    CHECK(aliases.size() == 2 * chunks * uint64_t(workers));
    for (int w = 0; w < workers; ++w) {
        uint64_t up = 0;
        for (const auto& [id, tag] : aliases) up += tag == 1000 + uint32_t(w);
        CHECK(up == chunks);
    }
    // Each helper's busy spans: in order, inside the engine's life, and somebody was busy. Its
    // work: the chunks it started, the bytes it copied on the host (none from page-locked
    // memory; both directions bounce every other byte once), and time accounted inside its
    // busy spans only.
    const auto helpers = engine.helper_threads();
    CHECK(helpers.size() == size_t(s.threads));
    size_t spans = 0;
    uint64_t started = 0, copied = 0;
    for (const auto& h : helpers) {
        started += h.work.chunks;
        copied += h.work.copied_bytes;
        int64_t busy = 0;
        for (const auto& [start, end] : h.busy) busy += end - start;
        CHECK(h.work.copy_ns >= 0);
        CHECK(h.work.start_ns >= 0);
        CHECK(h.work.wait_ns >= 0);
        CHECK(h.work.copy_ns + h.work.start_ns + h.work.wait_ns <= busy);
        if (h.work.copied_bytes == 0) CHECK(h.work.copy_ns == 0);
        CHECK(h.thread.launcher == "staging");
        int64_t last = before;
        for (const auto& [start, end] : h.busy) {
            CHECK(start >= last);
            CHECK(end >= start);
            last = end;
        }
        CHECK(last <= after);
        spans += h.busy.size();
    }
    CHECK(spans >= 1);
    CHECK(started == 2 * chunks * uint64_t(workers));
    CHECK(copied == (page_locked ? 0 : 2 * bytes * uint64_t(workers)));
}

// Runs `f` on another thread and fails (instead of hanging the suite) when it does not return.
template <typename F>
void within_seconds(int seconds, F f) {
    auto done = std::async(std::launch::async, f);
    REQUIRE(done.wait_for(std::chrono::seconds(seconds)) == std::future_status::ready);
    done.get();
}

template <typename F>
std::string thrown_message(F f) {
    try {
        f();
    } catch (const std::exception& e) {
        return e.what();
    }
    return "(nothing thrown)";
}

}  // namespace

TEST_CASE("staging: every byte lands once and a buffer is reused only after its DMA", "[staging]") {
    for (Setup s : {Setup{1, 1, 4096}, Setup{1, 2, 4096}, Setup{3, 2, 5000}, Setup{4, 3, 4096}}) {
        for (uint64_t bytes : {uint64_t(1), uint64_t(4095), uint64_t(4096), uint64_t(4096 * 10 + 123)}) {
            within_seconds(60, [&] { copy_both_ways(s, 1, bytes); });
            within_seconds(60, [&] { copy_both_ways(s, 4, bytes); });
            within_seconds(60, [&] { copy_both_ways(s, 4, bytes, true); });
        }
    }
}

TEST_CASE("staging: page-locked memory in chunks of its own size when one is given", "[staging]") {
    // [staging] chunk given: page-locked memory is DMA'd in place in chunks of that size (the
    // DMA side of a bounced copy without its host copies), not one chunk per helper.
    for (uint64_t bytes : {uint64_t(4096), uint64_t(4096 * 10 + 123)}) {
        within_seconds(60, [&] {
            copy_both_ways(Setup{3, 2, 4096, HostStores::cached, false, 4096}, 1, bytes, true);
        });
        within_seconds(60, [&] {
            copy_both_ways(Setup{3, 2, 4096, HostStores::cached, false, 8192}, 4, bytes, true);
        });
    }
}

TEST_CASE("staging: a helper's time waiting for its DMA is counted as waiting", "[staging]") {
    // The fake's wait() sleeps: 8 chunks, one helper, each wait at least 2 ms.
    auto fake_owner = std::make_unique<FakeDevice>(1, 2, 4096);
    fake_owner->wait_delay = std::chrono::milliseconds(2);
    StagingEngine engine({.device = 0, .threads = 1, .buffers = 2, .chunk = 4096},
                         std::move(fake_owner));
    engine.start();
    const auto src = pattern(8 * 4096, 1);
    std::vector<std::byte> device(src.size());
    engine.to_device(device.data(), src.data(), src.size(), 0, 1);
    engine.stop();
    const auto helpers = engine.helper_threads();
    REQUIRE(helpers.size() == 1);
    const HelperWork& w = helpers[0].work;
    CHECK(w.chunks == 8);
    CHECK(w.copied_bytes == src.size());
    CHECK(w.wait_ns >= 8 * 2'000'000);
    CHECK(device == src);
}

TEST_CASE("staging: a request's chunk ids are taken out by its tag while the engine runs",
          "[staging]") {
    // The Python module's engine lives across many w.timed() blocks: each block takes its own
    // chunks' ids when its copy returns, and untraced copies (tag 0) leave none behind.
    StagingEngine engine({.device = 0, .threads = 2, .buffers = 2, .chunk = 4096},
                         std::make_unique<FakeDevice>(2, 2, 4096));
    engine.start();
    const auto src = pattern(5 * 4096 + 7, 3);  // 6 chunks
    std::vector<std::byte> device(src.size()), back(src.size());
    engine.to_device(device.data(), src.data(), src.size(), -1, 7);
    engine.from_device(back.data(), device.data(), src.size(), -1, 0);
    const auto first = engine.take_correlations(7);
    CHECK(first.size() == 6);
    for (const auto& [id, tag] : first) CHECK((id != 0 && tag == 7));
    CHECK(engine.take_correlations(7).empty());  // taken once
    engine.from_device(back.data(), device.data(), src.size(), -1, 8);
    CHECK(engine.take_correlations(8).size() == 6);
    engine.stop();
    CHECK(engine.correlations().empty());  // nothing left: tag 0 kept none
    CHECK(back == src);
}

TEST_CASE("staging: chunk lengths without and with taper", "[staging]") {
    constexpr uint64_t MiB = uint64_t(1) << 20;
    auto cut = [](uint64_t bytes, uint64_t chunk, int threads, bool taper) {
        std::vector<uint64_t> lengths;
        for (uint64_t at = 0; at < bytes;) {
            lengths.push_back(staging_chunk_length(at, bytes, chunk, threads, taper));
            at += lengths.back();
        }
        return lengths;
    };
    // Without taper: whole chunks, the rest at the end.
    CHECK(cut(5 * MiB + 100, 2 * MiB, 4, false) == std::vector<uint64_t>{2 * MiB, 2 * MiB, MiB + 100});
    // With taper, 12 helpers, 2 MiB chunks, a 64 MiB copy: 12 quarter chunks first, whole chunks
    // in the middle, then the last (at most 12 whole chunks' worth) split ever finer, never
    // below a quarter chunk; everything page-sized but the last; the lengths add up.
    const auto t = cut(64 * MiB, 2 * MiB, 12, true);
    uint64_t sum = 0;
    for (size_t i = 0; i < t.size(); ++i) {
        INFO("chunk " << i << " of " << t.size() << ": " << t[i]);
        sum += t[i];
        CHECK(t[i] <= 2 * MiB);
        if (i < 12) CHECK(t[i] == MiB / 2);
        if (i + 1 < t.size()) {
            CHECK(t[i] % 4096 == 0);
            CHECK(t[i] >= MiB / 2);
        }
    }
    CHECK(sum == 64 * MiB);
    CHECK(std::count(t.begin(), t.end(), 2 * MiB) >= 17);  // (64 - 6 - 24) MiB of whole chunks
    // The tail shrinks: the last 12 chunks together are less than 12 whole chunks.
    uint64_t tail = 0;
    for (size_t i = t.size() - 12; i < t.size(); ++i) tail += t[i];
    CHECK(tail < 12 * 2 * MiB);
    CHECK(t.back() <= MiB / 2);
    // A copy smaller than one quarter chunk is one chunk; odd sizes end with their remainder.
    CHECK(cut(3000, 2 * MiB, 12, true) == std::vector<uint64_t>{3000});
    const auto odd = cut(MiB + 1, 2 * MiB, 2, true);
    CHECK(odd.front() == MiB / 2);
    CHECK(std::accumulate(odd.begin(), odd.end(), uint64_t(0)) == MiB + 1);
}

TEST_CASE("staging: with taper every byte still lands once, both ways", "[staging]") {
    for (Setup s : {Setup{3, 2, 16384, HostStores::cached, true},
                    Setup{4, 2, 5 * 4096, HostStores::cached, true}}) {
        for (uint64_t bytes : {uint64_t(1), uint64_t(4096 * 10 + 123), uint64_t((1 << 20) + 7)}) {
            within_seconds(60, [&] { copy_both_ways(s, 1, bytes); });
            within_seconds(60, [&] { copy_both_ways(s, 4, bytes); });
            within_seconds(60, [&] { copy_both_ways(s, 4, bytes, true); });
        }
    }
}

TEST_CASE("staging: helpers copying with streaming stores move every byte once, both ways",
          "[staging]") {
    // Chunks of 5000 bytes start at offsets that are not line-aligned in the pageable buffer.
    for (Setup s :
         {Setup{1, 2, 4096, HostStores::streaming}, Setup{3, 2, 5000, HostStores::streaming}}) {
        for (uint64_t bytes :
             {uint64_t(1), uint64_t(300), uint64_t(4096 * 10 + 123), uint64_t((1 << 20) + 7)}) {
            within_seconds(60, [&] { copy_both_ways(s, 1, bytes); });
            within_seconds(60, [&] { copy_both_ways(s, 4, bytes); });
        }
    }
}

TEST_CASE("staging: a failing chunk fails its own copy, names device, worker and offset, "
          "and nothing hangs",
          "[staging]") {
    const uint64_t chunk = 4096, bytes = 10 * chunk;
    // Each helper's own buffers, and staging.dma's shared ones (one DMA per 3 chunks).
    for (auto [in_wait, dma] : {std::pair{false, uint64_t(0)}, std::pair{true, uint64_t(0)},
                                std::pair{false, 3 * chunk}, std::pair{true, 3 * chunk}}) {
        StagingConfig config{3, 2, 2, chunk, {}};
        config.dma_chunk = dma;
        auto fake_owner = std::make_unique<FakeDevice>(staging_layout(config));
        FakeDevice& fake = *fake_owner;
        std::vector<std::byte> device(bytes * 4);
        fake.fail_at = device.data() + 2 * bytes + 2 * chunk + 7;  // worker 2, third chunk
        fake.fail_in_wait = in_wait;
        StagingEngine engine(config, std::move(fake_owner));
        engine.start();
        std::vector<std::string> errors(4);
        std::vector<std::vector<std::byte>> sources;
        for (int w = 0; w < 4; ++w) sources.push_back(pattern(bytes, w));
        within_seconds(60, [&] {
            std::vector<std::thread> threads;
            for (int w = 0; w < 4; ++w) {
                threads.emplace_back([&, w] {
                    try {
                        engine.to_device(device.data() + uint64_t(w) * bytes,
                                         sources[size_t(w)].data(), bytes, w, uint32_t(w));
                    } catch (const std::runtime_error& e) {
                        errors[size_t(w)] = e.what();
                    }
                });
            }
            for (auto& t : threads) t.join();
        });
        INFO("failure in " << (in_wait ? "wait" : "start") << ", dma " << dma << ": " << errors[2]);
        CHECK(contains(errors[2], "staging on device 3"));
        CHECK(contains(errors[2], "worker 2"));
        // The failing range: its chunk, or the DMA that holds it.
        CHECK(contains(errors[2], dma ? "chunk at offset 0 (12288 bytes of 40960)"
                                      : "chunk at offset 8192 (4096 bytes of 40960)"));
        CHECK(contains(errors[2], in_wait ? "illegal memory access" : "invalid argument"));
        for (int w : {0, 1, 3}) {
            CHECK(errors[size_t(w)].empty());
            CHECK(std::memcmp(device.data() + uint64_t(w) * bytes, sources[size_t(w)].data(),
                              bytes) == 0);
        }
        // The engine goes on serving after a failed request, both ways.
        std::vector<std::byte> again = pattern(bytes, 9), back(bytes);
        within_seconds(60, [&] {
            engine.to_device(device.data(), again.data(), bytes, 0, 9);
            engine.from_device(back.data(), device.data(), bytes, 0, 10);
        });
        CHECK(back == again);
        within_seconds(60, [&] { engine.stop(); });
    }
}

TEST_CASE("staging: a helper that cannot attach fails start() with its reason", "[staging]") {
    auto fake = std::make_unique<FakeDevice>(3, 2, 4096);
    fake->fail_attach_helper = 1;
    StagingEngine engine({0, 3, 2, 4096, {}}, std::move(fake));
    std::string error;
    within_seconds(60, [&] {
        try {
            engine.start();
        } catch (const std::runtime_error& e) {
            error = e.what();
        }
    });
    CHECK(contains(error, "helper thread 1 could not start: no device for this helper"));
    // Nothing is running: a copy is refused instead of waiting forever.
    std::vector<std::byte> src(10), dst(10);
    CHECK(contains(thrown_message([&] { engine.to_device(dst.data(), src.data(), 10, 5, 0); }),
                   "worker 5 copied while the engine's helper threads were not running"));
}

TEST_CASE("staging: the configuration must be able to move bytes", "[staging]") {
    CHECK(contains(thrown_message([] {
                       StagingEngine({1, 0, 2, 4096, {}}, std::make_unique<FakeDevice>(1, 2, 4096));
                   }),
                   "needs at least one helper thread"));
}
