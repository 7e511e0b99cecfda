// The staging engine's chunking and scheduling against a fake device whose DMA happens only when
// the engine waits for it: a buffer reused before its DMA finished, a chunk issued twice or
// skipped, or a lost wake-up all show up as wrong bytes, a wrong count or a hang.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <fstream>
#include <future>
#include <mutex>
#include <numeric>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "backend/staging_probe.hpp"
#include "engine/fake/host_staging_device.hpp"
#include "engine/measured_staging_device.hpp"
#include "engine/staging_engine.hpp"
#include "support/catch.hpp"
#include "support/copy_tags.hpp"
#include "support/sanitizer_build.hpp"
#include "support/text.hpp"
#include "util/clock.hpp"

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
    uint64_t page_locked_chunk = 0;  // StagingConfig::page_locked_chunk
};

StagingConfig config_of(const Setup& s) {
    StagingConfig c;
    c.threads = s.threads;
    c.buffers = s.buffers;
    c.chunk = s.chunk;
    c.page_locked_chunk = s.page_locked_chunk;
    c.dma_chunk = 0;  // each helper its own buffers, a DMA per chunk
    return c;
}

// The harness's probe of an engine, with the fake's DMA numbers as CUPTI's correlation ids.
std::shared_ptr<HarnessProbe> harness_probe(int helpers) {
    return std::make_shared<HarnessProbe>(helpers, test::fake_sources());
}

// `workers` threads each copy `bytes` through one engine, both directions, and the bytes are
// checked; `measured`: with the harness's probe, whose figures are checked too (without one the
// engine reads no clock and keeps counts only).
void copy_both_ways(const Setup& s, int workers, uint64_t bytes, bool page_locked = false,
                    bool measured = true) {
    auto fake_owner = std::make_unique<FakeDevice>(s.threads, s.buffers, s.chunk);
    FakeDevice& fake = *fake_owner;
    std::vector<std::byte> device(bytes * uint64_t(workers));
    std::vector<int> landed(device.size(), 0);
    fake.landed = &landed;
    fake.landed_base = device.data();
    const std::shared_ptr<HarnessProbe> probe = measured ? harness_probe(s.threads) : nullptr;
    StagingEngine engine(config_of(s), measured_device(std::move(fake_owner), probe, config_of(s)));
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
            test::tag_copies(1000 + uint32_t(w));
            engine.to_device(dev, sources[size_t(w)].data(), bytes, page_locked);
            test::tag_copies(2000 + uint32_t(w));
            engine.from_device(back[size_t(w)].data(), dev, bytes, page_locked);
        });
    }
    for (auto& t : threads) t.join();
    engine.stop();
    const int64_t after = now_ns();

    INFO("threads " << s.threads << ", buffers " << s.buffers << ", chunk " << s.chunk
                    << ", workers " << workers << ", bytes " << bytes << ", page-locked "
                    << page_locked << ", measured " << measured);
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
    const uint64_t chunks = (bytes + chunk - 1) / chunk;
    CHECK(fake.bounced == (page_locked ? 0 : 2 * chunks * uint64_t(workers)));
    const StagingTotals totals = engine.totals();
    CHECK(totals.requests == 2 * uint64_t(workers));
    CHECK(totals.chunks == 2 * chunks * uint64_t(workers));
    CHECK(totals.to_device_bytes == bytes * uint64_t(workers));
    CHECK(totals.from_device_bytes == bytes * uint64_t(workers));
    CHECK(totals.direct_bytes == (page_locked ? 2 * bytes * uint64_t(workers) : 0));
    if (!probe) return;
    auto aliases = probe->correlations();
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
    const auto helpers = probe->helper_threads();
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
    // Every copy had DMAs: each one's edges are counted, and the engine's share of its callers'
    // time lies inside the engine's life.
    const ProbeTotals t = probe->totals();
    CHECK(t.edged == 2 * uint64_t(workers));
    CHECK(t.in_engine_ns > 0);
    CHECK(t.in_engine_ns <= (after - before) * workers);
    CHECK(t.to_first_dma_ns + t.dma_span_ns + t.after_last_dma_ns <= t.in_engine_ns);
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
        for (uint64_t bytes :
             {uint64_t(1), uint64_t(4095), uint64_t(4096), uint64_t(4096 * 10 + 123)}) {
            within_seconds(60, [&] { copy_both_ways(s, 1, bytes); });
            within_seconds(60, [&] { copy_both_ways(s, 4, bytes); });
            within_seconds(60, [&] { copy_both_ways(s, 4, bytes, true); });
            within_seconds(60, [&] { copy_both_ways(s, 4, bytes, false, false); });
        }
    }
}

TEST_CASE("staging: page-locked memory in chunks of its own size when one is given", "[staging]") {
    // [staging] chunk given: page-locked memory is DMA'd in place in chunks of that size (the
    // DMA side of a bounced copy without its host copies), not one chunk per helper.
    for (uint64_t bytes : {uint64_t(4096), uint64_t(4096 * 10 + 123)}) {
        within_seconds(60, [&] { copy_both_ways(Setup{3, 2, 4096, 4096}, 1, bytes, true); });
        within_seconds(60, [&] { copy_both_ways(Setup{3, 2, 4096, 8192}, 4, bytes, true); });
    }
}

TEST_CASE("staging: a helper's time waiting for its DMA is counted as waiting", "[staging]") {
    // The fake's wait() sleeps: 8 chunks, one helper, each wait at least 2 ms.
    auto fake_owner = std::make_unique<FakeDevice>(1, 2, 4096);
    fake_owner->wait_delay = std::chrono::milliseconds(2);
    auto probe = std::make_shared<StatsProbe>(1);
    const StagingConfig config{
        .device = 0, .threads = 1, .buffers = 2, .chunk = 4096, .dma_chunk = 0};
    StagingEngine engine(config, measured_device(std::move(fake_owner), probe, config));
    engine.start();
    const auto src = pattern(8 * 4096, 1);
    std::vector<std::byte> device(src.size());
    engine.to_device(device.data(), src.data(), src.size());
    engine.stop();
    const HelperWork w = probe->helper_work(0);
    CHECK(w.chunks == 8);
    CHECK(w.copied_bytes == src.size());
    CHECK(w.wait_ns >= 8 * 2'000'000);
    CHECK(device == src);
}

TEST_CASE("staging: a request's chunk ids are handed over by its tag as it returns", "[staging]") {
    // The Python module's engine lives across many w.timed() blocks: each copy hands its own
    // chunks' ids to the block open on its caller's thread as it returns, and untraced copies
    // (tag 0) leave none behind.
    std::vector<std::vector<CorrelationAlias>> handed;
    CorrelatingProbe::Sources sources = test::fake_sources();
    sources.hand_over = [&](const std::vector<CorrelationAlias>& a) { handed.push_back(a); };
    auto probe = std::make_shared<CorrelatingProbe>(2, sources);
    const StagingConfig config{
        .device = 0, .threads = 2, .buffers = 2, .chunk = 4096, .dma_chunk = 0};
    StagingEngine engine(config,
                         measured_device(std::make_unique<FakeDevice>(2, 2, 4096), probe, config));
    engine.start();
    const auto src = pattern(5 * 4096 + 7, 3);  // 6 chunks
    std::vector<std::byte> device(src.size()), back(src.size());
    test::tag_copies(7);
    engine.to_device(device.data(), src.data(), src.size());
    REQUIRE(handed.size() == 1);  // handed over before to_device returned
    CHECK(handed[0].size() == 6);
    for (const auto& [id, tag] : handed[0]) CHECK((id != 0 && tag == 7));
    test::tag_copies(0);
    engine.from_device(back.data(), device.data(), src.size());
    CHECK(handed.size() == 1);  // an untagged copy hands over nothing
    test::tag_copies(8);
    engine.from_device(back.data(), device.data(), src.size());
    REQUIRE(handed.size() == 2);
    CHECK(handed[1].size() == 6);
    test::tag_copies(0);
    engine.stop();
    CHECK(probe->correlations().empty());  // handed over: none kept
    CHECK(back == src);
}

TEST_CASE(
    "staging: a failing chunk fails its own copy, names device, worker and offset, "
    "and nothing hangs",
    "[staging]") {
    const uint64_t chunk = 4096, bytes = 10 * chunk;
    // Each helper's own buffers, and staging.dma's shared ones (one DMA per 3 chunks).
    for (auto [in_wait, dma] : {std::pair{false, uint64_t(0)}, std::pair{true, uint64_t(0)},
                                std::pair{false, 3 * chunk}, std::pair{true, 3 * chunk}}) {
        StagingConfig config{.device = 3, .threads = 2, .buffers = 2, .chunk = chunk};
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
                                         sources[size_t(w)].data(), bytes);
                    } catch (const std::runtime_error& e) {
                        errors[size_t(w)] = e.what();
                    }
                });
            }
            for (auto& t : threads) t.join();
        });
        INFO("failure in " << (in_wait ? "wait" : "start") << ", dma " << dma << ": " << errors[2]);
        CHECK(contains(errors[2], "staging on device 3: host-to-device chunk"));
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
            engine.to_device(device.data(), again.data(), bytes);
            engine.from_device(back.data(), device.data(), bytes);
        });
        CHECK(back == again);
        within_seconds(60, [&] { engine.stop(); });
    }
}

TEST_CASE("staging: a helper that cannot attach fails start() with its reason", "[staging]") {
    auto fake = std::make_unique<FakeDevice>(3, 2, 4096);
    fake->fail_attach_helper = 1;
    StagingEngine engine({.device = 0, .threads = 3, .buffers = 2, .chunk = 4096, .dma_chunk = 0},
                         std::move(fake));
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
    CHECK(contains(thrown_message([&] { engine.to_device(dst.data(), src.data(), 10); }),
                   "staging on device 0: a copy was asked for while the engine's helper threads "
                   "were not running"));
}

TEST_CASE("staging: a helper thread the system refuses fails start() naming it, and nothing runs",
          "[staging]") {
    // Before, start() let std::thread's system_error out with its bare "Resource temporarily
    // unavailable", the helpers already started left running with the engine marked running.
    if (xfer::test::kSanitizerBuild) {
        WARN("skipped in a sanitizer build: its shadow memory cannot live under a data limit");
        return;
    }
    const pid_t child = fork();
    REQUIRE(child >= 0);
    if (child == 0) {
        // No room for more than a few 8 MiB stacks beyond what the process holds now (glibc's
        // cache of freed stacks holds at most 40 MiB of them).
        std::ifstream status("/proc/self/status");
        long long data_kib = 0;
        for (std::string line; std::getline(status, line);)
            if (line.rfind("VmData:", 0) == 0) data_kib = std::stoll(line.substr(7));
        const rlim_t limit = rlim_t(data_kib + 1024) * 1024;
        const rlimit data{limit, limit};
        if (setrlimit(RLIMIT_DATA, &data) != 0) _exit(3);
        StagingEngine engine(
            {.device = 0, .threads = 32, .buffers = 1, .chunk = 4096, .dma_chunk = 0},
            std::make_unique<FakeDevice>(32, 1, 4096));
        std::string error;
        try {
            engine.start();
        } catch (const std::runtime_error& e) {
            error = e.what();
        }
        if (error.empty()) _exit(5);  // every helper started: the limit did not bind
        if (!contains(error, "staging on device 0: helper thread ") ||
            !contains(error, " could not start: Resource temporarily unavailable"))
            _exit(4);
        std::vector<std::byte> src(10), dst(10);
        const std::string copy =
            thrown_message([&] { engine.to_device(dst.data(), src.data(), 10); });
        _exit(contains(copy, "asked for while the engine's helper threads were not running") ? 0
                                                                                             : 6);
    }
    int status = 0;
    REQUIRE(waitpid(child, &status, 0) == child);
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
}

TEST_CASE("staging: the configuration must be able to move bytes", "[staging]") {
    CHECK(contains(thrown_message([] {
                       StagingEngine(
                           {.device = 1, .threads = 0, .buffers = 2, .chunk = 4096, .dma_chunk = 0},
                           std::make_unique<FakeDevice>(1, 2, 4096));
                   }),
                   "needs at least one helper thread"));
}
