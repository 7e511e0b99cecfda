// report/handoff.cpp: gaps, hand-off rate and run lengths on synthetic device sequences.
#include <cmath>
#include <string>
#include <vector>

#include "report/analysis.hpp"
#include "report/handoff.hpp"
#include "support/catch.hpp"
#include "support/values.hpp"
#include "test_report_fixtures.hpp"

using namespace xfer;
using namespace xfer::testing;
using xfer::test::near;

namespace {

constexpr int64_t kUs = 1'000;
constexpr int64_t kMs = 1'000'000;

// The device moves one copy at a time, 10 ms each, in the order `owners` gives (slot i belongs
// to worker owners[i]). Each worker's call starts `gap[w]` after its previous call returned
// (its first call at 0, waiting for its slot) and returns when its slot ends. The first
// `warmup` copies of each worker are warm-ups.
RunResult device_sequence(const std::vector<int>& owners, const std::vector<int64_t>& gap,
                          int warmup = 0, bool device_times = true) {
    RunResult r = run(0, "host", int(gap.size()));
    r.backend = device_times ? "cuda" : "host";
    std::vector<int64_t> last_end(gap.size(), -1);
    std::vector<int> done(gap.size(), 0);
    for (size_t slot = 0; slot < owners.size(); ++slot) {
        const int w = owners[slot];
        const int64_t end = int64_t(slot + 1) * 10 * kMs;
        const int64_t start = last_end[size_t(w)] < 0 ? 0 : last_end[size_t(w)] + gap[size_t(w)];
        const int k = done[size_t(w)]++;
        Record rec = record(0, w, k - warmup, start, end, kGB, k < warmup);
        rec.device = device_times ? 0 : -1;
        if (device_times) {
            rec.device_start_ns = end - 10 * kMs;
            rec.device_end_ns = end;
            rec.device_timing = DeviceTiming::cupti;
        }
        r.records.push_back(rec);
        last_end[size_t(w)] = end;
    }
    return r;
}

RunAnalysis analyzed(const RunResult& r) {
    Results res;
    res.runs.push_back(r);
    return analyze(res).runs[0];
}

}  // namespace

TEST_CASE("round-robin: every copy hands the device to another worker", "[report][handoff]") {
    std::vector<int> owners;
    for (int i = 0; i < 12; ++i) owners.push_back(i % 4);
    const RunAnalysis a = analyzed(device_sequence(owners, {50 * kUs, 50 * kUs, 50 * kUs, 50 * kUs},
                                                   /*warmup=*/1));
    REQUIRE(a.handoffs.size() == 1);
    const HandoffStats& h = a.handoffs[0];
    CHECK(h.device == 0);
    CHECK(h.clock == "device");
    CHECK(h.copies == 8);
    // Workers 1-3 warm up inside the window (it opens at worker 0's first measured call, 10 ms
    // + 50 us); worker 0's warm-up lies before it and is not part of the sequence.
    CHECK(h.warmup_copies == 3);
    CHECK(h.workers == 4);
    CHECK(h.handoffs == 10);
    CHECK(near(h.handoff_rate, 1.0));
    CHECK(near(h.mean_run_length, 1.0));
    REQUIRE(a.gap_ns.has_value());
    CHECK(a.gap_ns->n == 8);  // the gaps before the measured copies, warm-up to first included
    CHECK(near(a.gap_ns->p50, 50 * kUs));
    for (const WorkerStats& w : a.workers) {
        REQUIRE(w.gap_ns.has_value());
        CHECK(w.gap_ns->n == 2);
        CHECK(near(w.run_length, 1.0));
    }
}

TEST_CASE("one worker keeps the device: hand-off rate near 0, long runs", "[report][handoff]") {
    const RunAnalysis a = analyzed(device_sequence({0, 0, 0, 0, 1, 1, 1, 1}, {5 * kUs, 5 * kUs}));
    REQUIRE(a.handoffs.size() == 1);
    const HandoffStats& h = a.handoffs[0];
    CHECK(h.copies == 8);
    CHECK(h.warmup_copies == 0);
    CHECK(h.handoffs == 1);
    CHECK(near(h.handoff_rate, 1.0 / 7.0));
    CHECK(near(h.mean_run_length, 4.0));
    CHECK(near(a.workers[0].run_length, 4.0));
    CHECK(near(a.workers[1].run_length, 4.0));
    CHECK(near(a.workers[0].gap_ns->p50, 5 * kUs));
}

TEST_CASE("mixed: who keeps the device and who hands it off, with their gaps",
          "[report][handoff]") {
    // Worker 0 returns after 2 us and keeps the device for three copies; worker 1 returns after
    // 300 us and gets one copy each time.
    const RunAnalysis a = analyzed(device_sequence({0, 0, 0, 1, 0, 0, 0, 1}, {2 * kUs, 300 * kUs}));
    const HandoffStats& h = a.handoffs.at(0);
    CHECK(h.handoffs == 3);
    CHECK(near(h.handoff_rate, 3.0 / 7.0));
    CHECK(near(h.mean_run_length, 2.0));
    CHECK(near(a.workers[0].run_length, 3.0));
    CHECK(near(a.workers[1].run_length, 1.0));
    CHECK(near(a.workers[0].gap_ns->p50, 2 * kUs));
    CHECK(near(a.workers[1].gap_ns->p50, 300 * kUs));
    CHECK(a.gap_ns->n == 6);  // worker 0: 5 gaps, worker 1: 1
}

TEST_CASE("without device times the sequence is ordered by host starts, and says so",
          "[report][handoff]") {
    // Host backend: the host calls themselves in start order.
    const RunAnalysis a =
        analyzed(device_sequence({0, 1, 0, 1}, {1 * kUs, 1 * kUs}, 0, /*device_times=*/false));
    const HandoffStats& h = a.handoffs.at(0);
    CHECK(h.device == -1);
    CHECK(h.clock == "host");
    // Host starts: w0 0, w1 0, w0 10 ms + 1 us, w1 20 ms + 1 us -> stable order 0 1 0 1.
    CHECK(h.handoffs == 3);
    CHECK(near(h.handoff_rate, 1.0));
}

TEST_CASE("gaps_before: the gap from the same worker's previous return", "[report][handoff]") {
    std::vector<Record> rs{record(0, 1, 0, 100, 200, kGB), record(0, 0, 0, 0, 50, kGB),
                           record(0, 1, 1, 230, 300, kGB), record(0, 0, 1, 60, 90, kGB)};
    const auto g = gaps_before(rs);
    CHECK_FALSE(g[0].has_value());
    CHECK_FALSE(g[1].has_value());
    CHECK(g[2] == 30);
    CHECK(g[3] == 10);
}

// --- the why: lines built on these figures ---

namespace {

bool says(const std::vector<std::string>& lines, const std::string& part) {
    for (const auto& l : lines)
        if (l.find(part) != std::string::npos) return true;
    return false;
}

RunResult as(RunResult r, int index, const std::string& launcher, const std::string& gil = "") {
    r.index = index;
    r.launcher = launcher;
    for (auto& rec : r.records) rec.run = index;
    r.settings = {{"launcher", launcher}, {"payload", ""}, {"gil", gil.empty() ? "release" : gil}};
    return r;
}

}  // namespace

TEST_CASE(
    "why: host threads keep the device, python threads hand it off, the gap decides only "
    "with a switch",
    "[report][handoff][explain]") {
    std::vector<int> rr, kept;
    for (int i = 0; i < 8; ++i) rr.push_back(i % 2);
    for (int i = 0; i < 8; ++i) kept.push_back(i / 4);
    Results res;
    res.runs.push_back(as(device_sequence(kept, {3 * kUs, 3 * kUs}), 0, "host"));
    res.runs.push_back(as(device_sequence(rr, {400 * kUs, 400 * kUs}), 1, "python", "release"));
    const Analysis an = analyze(res);
    CHECK(says(an.runs[0].explanations, "workers 0, 1 kept it (gap p50 3 us)"));
    CHECK(says(an.runs[0].explanations, "host workers return to the driver after p50 3 us"));
    CHECK(says(an.runs[1].explanations, "handed it off after about one copy (gap p50 400 us)"));
    CHECK(says(an.runs[1].explanations, "python workers return to the driver after p50 400 us"));
    // Host against Python threads differ in more than the gap: listed, not called a cause.
    CHECK(says(an.summary, "gap after a copy vs hand-off"));
    CHECK_FALSE(says(an.summary, "the gap decides"));
    // The switch: the same host threads, made to wait 400 us between copies, hand it off too.
    Results switched = res;
    switched.runs.push_back(as(device_sequence(rr, {400 * kUs, 400 * kUs}), 2, "host"));
    CHECK(says(analyze(switched).summary, "the gap decides who gets the device next"));
    // gil = release against gil = hold is a GIL switch, not a gap switch.
    Results gil;
    gil.runs.push_back(as(device_sequence(kept, {3 * kUs, 3 * kUs}), 0, "python", "release"));
    gil.runs.push_back(as(device_sequence(rr, {400 * kUs, 400 * kUs}), 1, "python", "hold"));
    CHECK_FALSE(says(analyze(gil).summary, "the gap decides"));
    // gil = release: the GIL is named only as released, never as the cause.
    CHECK(says(an.runs[1].explanations, "the GIL is released during each copy"));
    CHECK_FALSE(says(an.runs[1].explanations, "such as the GIL"));
    CHECK_FALSE(says(an.runs[1].explanations, "the GIL, held"));
    CHECK_FALSE(says(an.runs[0].explanations, "GIL"));  // host threads never take it
}

TEST_CASE("why: within one run the worker that returns sooner keeps the device",
          "[report][handoff][explain]") {
    Results res;
    res.runs.push_back(
        as(device_sequence({0, 0, 0, 1, 0, 0, 0, 1}, {2 * kUs, 300 * kUs}), 0, "host"));
    const Analysis an = analyze(res);
    CHECK(says(an.runs[0].explanations, "worker 0 kept it (gap p50 2 us)"));
    CHECK(says(an.runs[0].explanations, "worker 1 handed it off after about one copy"));
    CHECK(says(an.runs[0].explanations, "the workers that returned sooner kept it"));
}

TEST_CASE("why: no overlap because copies are short is not called a lock",
          "[report][handoff][explain]") {
    // Host backend: two workers, 1 ms copies, the second starts 10 ms after the first finished.
    RunResult r = run(0, "host", 2);
    back_to_back(r, 0, 0, {kMs, kMs});
    back_to_back(r, 1, 12 * kMs, {kMs, kMs});
    r.settings = {{"launcher", "host"}, {"payload", ""}, {"gil", "release"}};
    Results res;
    res.runs.push_back(r);
    const auto why = analyze(res).runs[0].explanations;
    CHECK(says(why, "copies never overlapped because they are short"));
    CHECK_FALSE(says(why, "lock"));
    CHECK_FALSE(says(why, "GIL"));
}

TEST_CASE("why: calls serialized by a held GIL say so, a released one is ruled out",
          "[report][handoff][explain]") {
    auto alternating = [](const std::string& gil) {
        RunResult r = run(0, "python", 2);
        r.records = {record(0, 0, 0, 0, kS, kGB), record(0, 1, 0, kS, 2 * kS, kGB),
                     record(0, 0, 1, 2 * kS, 3 * kS, kGB), record(0, 1, 1, 3 * kS, 4 * kS, kGB)};
        r.settings = {{"launcher", "python"}, {"payload", "threads.py"}, {"gil", gil}};
        Results res;
        res.runs.push_back(r);
        return analyze(res).runs[0].explanations;
    };
    const auto hold = alternating("hold");
    const auto release = alternating("release");
    CHECK(says(hold, "the GIL, held across the call (gil = hold)"));
    CHECK(says(release, "not the GIL, which the copy releases (gil = release)"));
    CHECK_FALSE(says(release, "the GIL, held"));
}

TEST_CASE("why: copies overlap across contexts but never within one: per context",
          "[report][handoff][explain]") {
    // `per_context` workers share each of two contexts; inside a context they take turns, the
    // two contexts are in flight at once.
    auto contexts_of = [](int per_context) {
        RunResult r = run(0, "process", 2 * per_context);
        r.backend = "cuda";
        for (int w = 0; w < 2 * per_context; ++w) {
            const int context = w / per_context, turn = w % per_context;
            for (int k = 0; k < 3; ++k) {
                const int64_t slot = (k * per_context + turn) * 10 * kMs;
                Record rec = record(0, w, k, slot, slot + 10 * kMs, kGB);
                rec.device = 0;
                rec.device_start_ns = rec.host_start_ns + context * kMs;
                rec.device_end_ns = rec.host_end_ns;
                rec.device_timing = DeviceTiming::cupti;
                rec.context = uint32_t(context + 1);
                r.records.push_back(rec);
            }
        }
        r.settings = {{"launcher", "process"}};
        Results res;
        res.runs.push_back(r);
        return analyze(res).runs[0];
    };
    const RunAnalysis shared = contexts_of(2);
    REQUIRE(shared.handoffs.size() == 1);
    CHECK(shared.handoffs[0].contexts == 2);
    CHECK(shared.handoffs[0].context_peak == 1);
    CHECK(shared.handoffs[0].context_workers == 2);
    CHECK(says(shared.explanations, "copies of 2 CUDA contexts overlapped (peak 2"));
    CHECK(says(shared.explanations, "the serialization is per context"));
    // One worker per context: its own copies never overlap, so the context shows nothing.
    const RunAnalysis alone = contexts_of(1);
    CHECK(alone.handoffs[0].context_workers == 1);
    CHECK_FALSE(says(alone.explanations, "per context"));
}
