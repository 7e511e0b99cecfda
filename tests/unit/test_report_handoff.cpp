// report/analysis/handoff.cpp: gaps, hand-off rate and run lengths on synthetic device sequences.
#include <cmath>
#include <string>
#include <vector>

#include "report/analysis/analysis.hpp"
#include "report/explain/analyze.hpp"
#include "report/analysis/handoff.hpp"
#include "support/catch.hpp"
#include "support/values.hpp"
#include "test_report_fixtures.hpp"

using namespace xfer;
using namespace xfer::testing;
using xfer::test::near;

namespace {

// The device moves one copy at a time, 10 ms each, in the order `owners` gives (slot i belongs
// to worker owners[i]). Each worker's call starts `gap[w]` after its previous call returned
// (its first call at 0, waiting for its slot) and returns when its slot ends. The first
// `warmup` copies of each worker are warm-ups.
RunResult device_sequence(const std::vector<int>& owners, const std::vector<int64_t>& gap,
                          int warmup = 0, bool device_times = true) {
    RunResult r = run(0, "host", int(gap.size()));
    r.backend_used = device_times ? "cuda" : "host";
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

// `r` as run `index` of a plan, with the settings the rules read and a scaling key that holds
// them (report/analysis/switches.hpp compares runs by it).
RunResult as(RunResult r, int index, const std::string& launcher, const std::string& gil = "",
             const std::string& between = "none") {
    r.position.index = index;
    r.settings.launcher = launcher;
    r.position.label = launcher + " " + std::to_string(index);  // each run its own, one trial each
    for (auto& rec : r.records) rec.run = index;
    const std::string g = gil.empty() ? "release" : gil;
    r.settings = nlohmann::json{
        {"launcher", launcher}, {"payload", ""}, {"gil", g}, {"threads", {{"between", between}}}};
    r.position.scaling_key = nlohmann::json{
        {"launcher", launcher},
        {"payload", ""},
        {"gil", g},
        {"threads",
         {{"between", between}}}}.dump();
    return r;
}

}  // namespace

TEST_CASE(
    "why: host threads keep the device, python threads hand it off, the gap decides only "
    "with a switch",
    "[report][handoff][explain]") {
    std::vector<int> rr, kept;  // 6 copies per worker: enough to call one kept or handed
    for (int i = 0; i < 12; ++i) rr.push_back(i % 2);
    for (int i = 0; i < 12; ++i) kept.push_back(i / 6);
    Results res;
    res.runs.push_back(as(device_sequence(kept, {3 * kUs, 3 * kUs}), 0, "host"));
    res.runs.push_back(as(device_sequence(rr, {400 * kUs, 400 * kUs}), 1, "python", "release"));
    const Analysis an = analyze(res);
    CHECK(says(an.runs[0].findings, "2 of 2 workers kept it, 0 handed it off"));
    CHECK(says(an.runs[0].findings, "host workers return to the driver after p50 3 us"));
    CHECK(says(an.runs[1].findings, "0 of 2 workers kept it, 2 handed it off after about one"));
    CHECK(says(an.runs[1].findings, "python workers return to the driver after p50 400 us"));
    // Host against Python threads differ in more than the gap: listed, not called a cause.
    CHECK(says(an.summary, "gap after a copy vs hand-off"));
    CHECK_FALSE(says(an.summary, "the gap decides"));
    // The switch: the same host threads made to wait 400 us between copies differ from run 0
    // in threads.between alone, and hand the device off.
    Results switched = res;
    switched.runs.push_back(
        as(device_sequence(rr, {400 * kUs, 400 * kUs}), 2, "host", "", "spin:400us"));
    CHECK(says(analyze(switched).summary,
               "run 0 (threads.between = none, gap p50 3 us) kept the device (hand-off rate "
               "0.09) and run 2 (threads.between = spin:400us, gap p50 400 us) handed it over "
               "(hand-off rate 1.00)"));
    CHECK(says(analyze(switched).summary,
               "with nothing else changed, the gap after a copy decides who gets the device next"));
    // The same host threads with a gap that does not move them into the other band: no cause.
    Results too_close = res;
    too_close.runs.push_back(
        as(device_sequence(kept, {4 * kUs, 4 * kUs}), 2, "host", "", "spin:4us"));
    CHECK_FALSE(says(analyze(too_close).summary, "decides"));
    // gil = release against gil = hold is a GIL switch, not a gap switch.
    Results gil;
    gil.runs.push_back(as(device_sequence(kept, {3 * kUs, 3 * kUs}), 0, "python", "release"));
    gil.runs.push_back(as(device_sequence(rr, {400 * kUs, 400 * kUs}), 1, "python", "hold"));
    CHECK_FALSE(says(analyze(gil).summary, "decides"));
    // gil = release: the GIL is named only as not held, never as the cause.
    CHECK(says(an.runs[1].findings,
               "gil = release: the GIL was not held during the copy calls, so it did not "
               "serialize them"));
    CHECK_FALSE(says(an.runs[1].findings, "lengthens the gap"));
    CHECK_FALSE(says(an.runs[0].findings, "GIL"));  // host threads never take it
}

TEST_CASE("why: within one run the worker that returns sooner keeps the device",
          "[report][handoff][explain]") {
    // Worker 0 makes three copies for each of worker 1's: 18 and 6 copies, 17 and 5 gaps.
    std::vector<int> owners;
    for (int i = 0; i < 6; ++i) owners.insert(owners.end(), {0, 0, 0, 1});
    Results res;
    res.runs.push_back(as(device_sequence(owners, {2 * kUs, 300 * kUs}), 0, "host"));
    const Analysis an = analyze(res);
    CHECK(says(an.runs[0].findings, "1 of 2 workers kept it, 1 handed it off after about one"));
    CHECK(an.runs[0].workers[0].run_length == 3);  // the keeper, as --full's rows name it
    CHECK(says(an.runs[0].findings, "the workers that returned sooner kept it"));
    // Gaps 1.2x apart are not "sooner": the sentence needs them 1.5x apart.
    Results close;
    close.runs.push_back(as(device_sequence(owners, {250 * kUs, 300 * kUs}), 0, "host"));
    CHECK(says(analyze(close).runs[0].findings, "1 of 2 workers kept it"));
    CHECK_FALSE(says(analyze(close).runs[0].findings, "returned sooner"));
    // Two copies of worker 1 are too few to call it a hander at all.
    Results few;
    few.runs.push_back(
        as(device_sequence({0, 0, 0, 1, 0, 0, 0, 1}, {2 * kUs, 300 * kUs}), 0, "host"));
    CHECK(says(analyze(few).runs[0].findings, "1 of 2 workers kept it, 0 handed it off"));
    CHECK_FALSE(says(analyze(few).runs[0].findings, "returned sooner"));
}

TEST_CASE("why: no overlap because copies are short is not called a lock",
          "[report][handoff][explain]") {
    // Host backend: two workers, 1 ms copies, the second starts 10 ms after the first finished.
    RunResult r = run(0, "host", 2);
    back_to_back(r, 0, 0, {kMs, kMs});
    back_to_back(r, 1, 12 * kMs, {kMs, kMs});
    r.settings = nlohmann::json{{"launcher", "host"}, {"payload", ""}, {"gil", "release"}};
    Results res;
    res.runs.push_back(r);
    const auto why = analyze(res).runs[0].findings;
    CHECK(says(why,
               "calls never overlapped, but they had little chance to: a call took p50 1 ms "
               "while the workers' first calls spread over 12 ms"));
    CHECK_FALSE(says(why, "lock"));
    CHECK_FALSE(says(why, "GIL"));
}

TEST_CASE("why: calls serialized by a held GIL say so, a released one is ruled out",
          "[report][handoff][explain]") {
    auto python_run = [](int index, const std::string& gil, bool overlap) {
        RunResult r = run(index, "python", 2);
        r.position.label = "python gil=" + gil;
        // Two workers of two copies each, one call at a time, or both workers at once.
        const int64_t w1 = overlap ? 0 : kS;
        r.records = {record(index, 0, 0, 0, kS, kGB), record(index, 1, 0, w1, w1 + kS, kGB),
                     record(index, 0, 1, 2 * kS, 3 * kS, kGB),
                     record(index, 1, 1, 2 * kS + w1, 3 * kS + w1, kGB)};
        r.settings =
            nlohmann::json{{"launcher", "python"}, {"payload", "threads.py"}, {"gil", gil}};
        r.position.scaling_key =
            nlohmann::json{{"launcher", "python"}, {"payload", "threads.py"}, {"gil", gil}}.dump();
        return r;
    };
    const auto explain = [](std::vector<RunResult> runs) {
        Results res;
        res.runs = std::move(runs);
        return analyze(res).runs[0].findings;
    };
    // Without a switch the held GIL is a setting, not a cause.
    const auto hold = explain({python_run(0, "hold", false)});
    CHECK(says(hold,
               "calls never overlapped: one copy call in flight at a time (host-side peak "
               "1, warm-ups included) with 2 workers; gil = hold, and no run of this plan "
               "differs from it in gil alone, so no cause is named"));
    // The switch: the same with gil = release overlapped: the GIL serialized them.
    const auto switched = explain({python_run(0, "hold", false), python_run(1, "release", true)});
    CHECK(says(switched,
               "the GIL held across the call serialized them: 'python gil=release', the same "
               "with gil = release, overlapped (host-side peak 2); from one trial only (a cause "
               "needs 3 trials)"));
    // Three trials a side: a cause without the caveat; one of them on a shared machine: said.
    std::vector<RunResult> three;
    for (int t = 1; t <= 3; ++t)
        for (const char* gil : {"hold", "release"}) {
            RunResult r = python_run(int(three.size()), gil, std::string(gil) == "release");
            r.position.trial = t;
            three.push_back(std::move(r));
        }
    const auto repeated = explain(three);
    CHECK(says(repeated, "overlapped (host-side peak 2)"));
    CHECK_FALSE(says(repeated, "trial only"));
    CHECK_FALSE(says(repeated, "shared machine"));
    three[3].host_activity = HostActivity{"copies", 10 * kS, 16, 6.4, 1.0, 1.7, 0};
    CHECK(says(explain(three),
               "overlapped (host-side peak 2); 1 of the 6 runs it rests on ran on a shared "
               "machine, which may have moved their figures"));
    // The switch that does not turn the effect off: the GIL is not shown to be the cause.
    const auto both = explain({python_run(0, "hold", false), python_run(1, "release", false)});
    CHECK(says(both, "did not overlap in every trial either, so the held GIL is not shown"));
    // gil = release, serialized all the same: no cause, and no "lock" guessed.
    const auto release = explain({python_run(0, "release", false)});
    CHECK(says(release, "calls never overlapped: one copy call in flight at a time"));
    CHECK_FALSE(says(release, "GIL"));
    CHECK_FALSE(says(release, "lock"));
}

TEST_CASE("why: copies overlap across contexts but never within one: per context",
          "[report][handoff][explain]") {
    // `per_context` workers share each of two contexts; inside a context they take turns, the
    // two contexts are in flight at once.
    auto contexts_of = [](int per_context) {
        RunResult r = run(0, "process", 2 * per_context);
        r.backend_used = "cuda";
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
        r.settings = nlohmann::json{{"launcher", "process"}};
        Results res;
        res.runs.push_back(r);
        return analyze(res).runs[0];
    };
    const RunAnalysis shared = contexts_of(2);
    REQUIRE(shared.handoffs.size() == 1);
    CHECK(shared.handoffs[0].contexts == 2);
    CHECK(shared.handoffs[0].context_peak == 1);
    CHECK(shared.handoffs[0].context_workers == 2);
    CHECK(says(shared.findings,
               "device 0: transfers of 2 CUDA contexts overlapped (peak 2) "
               "but never two within one context, though a context held "
               "up to 2 workers"));
    // One worker per context: its own copies never overlap, so the context shows nothing.
    const RunAnalysis alone = contexts_of(1);
    CHECK(alone.handoffs[0].context_workers == 1);
    CHECK_FALSE(says(alone.findings, "within one context"));
}
