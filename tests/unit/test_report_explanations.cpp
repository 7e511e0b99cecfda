// Issue #32: each of the fifteen explanation sentences that said more than the run's data
// supports, with a fixture where the (new) sentence must fire and one where it must stay
// silent. The rules: report/explain/explanation_rules.cpp; the catalogue: docs/reading-reports.md.
#include <cmath>
#include <string>
#include <vector>

#include "report/analysis/analysis.hpp"
#include "report/explain/analyze.hpp"
#include "report/analysis/trial_analysis.hpp"
#include "util/format.hpp"
#include "support/catch.hpp"
#include "test_report_fixtures.hpp"

using namespace xfer;
using namespace xfer::testing;

namespace {

// A device-timed copy: the call [call0, call1], the transfer [dev0, dev1] on `device`.
Record on_device(int run, int worker, int rep, int64_t call0, int64_t call1, int64_t dev0,
                 int64_t dev1, int device = 0, bool warmup = false) {
    Record r = record(run, worker, rep, call0, call1, kGB, warmup);
    r.device = device;
    r.device_start_ns = dev0;
    r.device_end_ns = dev1;
    r.device_timing = DeviceTiming::cupti;
    return r;
}

// A run with the settings and scaling key the switch rules compare (report/analysis/switches.hpp).
RunResult plan_run(int index, const std::string& launcher, int threads, nlohmann::json settings,
                   const std::string& label) {
    RunResult r = run(index, launcher, threads);
    r.backend_used = "cuda";
    r.position.label = label;
    settings["launcher"] = launcher;
    r.settings = settings;
    r.settings.threads.count = threads;  // `settings` names only what the rules compare
    r.position.scaling_key = settings.dump();
    return r;
}

Analysis analyzed(std::vector<RunResult> runs) {
    Results res;
    res.runs = std::move(runs);
    return analyze(res);
}

// `workers` workers whose calls all start at 0 while the device moves one transfer at a time
// (`each` long), round-robin, `rounds` copies each.
RunResult queued_on_one_device(int index, int workers, int rounds, int64_t each) {
    RunResult r = run(index, "python", workers);
    r.backend_used = "cuda";
    int64_t slot = 0;
    std::vector<int64_t> returned(size_t(workers), 0);
    for (int k = 0; k < rounds; ++k)
        for (int w = 0; w < workers; ++w, slot += each) {
            r.records.push_back(
                on_device(index, w, k, returned[size_t(w)], slot + each, slot, slot + each));
            returned[size_t(w)] = slot + each;
        }
    return r;
}

}  // namespace

TEST_CASE("#1 waiting on one device is said per device, never across two devices",
          "[report][explain]") {
    // Fires: four calls at once, one device moving one transfer at a time.
    const Analysis one = analyzed({queued_on_one_device(0, 4, 3, 10 * kMs)});
    CHECK(says(one.runs[0].findings, "on device 0 calls overlapped (host-side concurrency "));
    CHECK(says(one.runs[0].findings, "so per-copy bandwidth there measures waiting"));
    // Silent: two workers on two devices, each device one transfer at a time, both devices at
    // once: the mean of the per-device concurrencies (1.0) is no "device-side" figure.
    RunResult two = run(0, "host", 2);
    two.backend_used = "cuda";
    for (int w = 0; w < 2; ++w)
        for (int k = 0; k < 3; ++k)
            two.records.push_back(on_device(0, w, k, k * 10 * kMs, (k + 1) * 10 * kMs,
                                            k * 10 * kMs + kMs, (k + 1) * 10 * kMs, w));
    const Analysis an = analyzed({two});
    CHECK(an.runs[0].device_peak_all == 2);
    CHECK_FALSE(says(an.runs[0].findings, "transfers did not"));
    CHECK_FALSE(says(an.runs[0].findings, "measures waiting"));
}

TEST_CASE("a device's hand-off sentence quotes that device's gaps, not the run's",
          "[report][explain]") {
    // Workers 0 and 1 take turns on device 0 and call again 12 ms after a copy; workers 2 and 3
    // take turns on device 1 and call again after 52 ms. Transfers take 10 ms.
    RunResult r = run(0, "python", 4);
    r.backend_used = "cuda";
    for (int device = 0; device < 2; ++device) {
        const int64_t step = device == 0 ? 11 * kMs : 31 * kMs;  // one worker's call to the other's
        for (int k = 0; k < 12; ++k) {
            const int w = 2 * device + k % 2;
            const int64_t t = k * step;
            r.records.push_back(on_device(0, w, k / 2, t, t + 10 * kMs, t, t + 10 * kMs, device));
        }
    }
    const Analysis an = analyzed({r});
    CHECK(says(an.runs[0].findings, "device 0 changed hands at rate 1.00 (mean run length 1.0)"));
    CHECK(says(an.runs[0].findings, "python workers return to the driver after p50 12 ms"));
    CHECK(says(an.runs[0].findings, "python workers return to the driver after p50 52 ms"));
    REQUIRE(an.runs[0].gap_ns);
    CHECK(an.runs[0].gap_ns->p50 == Approx(32 * kMs));  // the run's: neither device's
}

TEST_CASE("#2 never two calls at once counts the warm-ups in flight, and guesses no lock",
          "[report][explain]") {
    // Two workers alternate their measured calls; in `overlapping` worker 1's warm-up is still
    // running during worker 0's first measured call.
    auto alternating = [](bool overlapping) {
        RunResult r = run(0, "host", 2);
        r.records.push_back(record(0, 1, -1, overlapping ? kS / 2 : 0, kS - 1, kGB, true));
        r.records.push_back(record(0, 0, 0, kS, 2 * kS, kGB));
        r.records.push_back(record(0, 1, 0, 2 * kS, 3 * kS, kGB));
        r.records.push_back(record(0, 0, 1, 3 * kS, 4 * kS, kGB));
        r.records.push_back(record(0, 1, 1, 4 * kS, 5 * kS, kGB));
        if (overlapping) r.records[0].host_end_ns = kS + kS / 2;
        return analyzed({r}).runs[0];
    };
    const RunAnalysis alone = alternating(false);
    CHECK(says(alone.findings,
               "calls never overlapped: one copy call in flight at a time "
               "(host-side peak 1, warm-ups included) with 2 workers"));
    CHECK_FALSE(says(alone.findings, "lock"));
    const RunAnalysis with_warmup = alternating(true);
    CHECK(with_warmup.host_peak == 1);  // the measured copies alone
    CHECK(with_warmup.host_peak_in_flight == 2);
    CHECK_FALSE(says(with_warmup.findings, "never overlapped"));
}

namespace {

// Baseline: one worker, copies of 0.9 and 1.1 s back to back, 8 GB in 8 s, the whole run
// stretched by `stretch`.
RunResult one_worker_base(int index, int trial, double stretch = 1) {
    RunResult base = run(index, "host", 1);
    base.backend_used = "cuda";
    base.position.label = "base";
    base.position.trial = trial;
    const auto at = [stretch](int64_t t) { return int64_t(double(t) * stretch); };
    for (int k = 0; k < 8; ++k) {
        const int64_t start = k / 2 * 2 * kS + (k % 2 ? 900 * kMs : 0);
        const int64_t end = start + (k % 2 ? 1100 * kMs : 900 * kMs);
        base.records.push_back(on_device(index, 0, k, at(start), at(end), at(start), at(end)));
    }
    return base;
}

// The same bytes per second from four workers whose copies each take four times as long, the
// whole run stretched by `stretch` (1.05: 5 % fewer bytes per second). Shared: the four
// transfers at once over the call; in turns: 1 s each.
RunResult four_workers(int index, int trial, bool shared, double stretch = 1) {
    RunResult r = run(index, "host", 4);
    r.backend_used = "cuda";
    r.position.label = "four";
    r.position.trial = trial;
    const auto at = [stretch](int64_t t) { return int64_t(double(t) * stretch); };
    for (int k = 0; k < 2; ++k)
        for (int w = 0; w < 4; ++w) {
            // Calls of 3.6 and 4.4 s (two workers each) over each 4 s round.
            const int64_t call0 = 4 * k * kS, call1 = call0 + (w % 2 ? 4400 : 3600) * kMs;
            const int64_t dev0 = shared ? call0 : call0 + w * kS;
            const int64_t dev1 = shared ? call1 : dev0 + kS;
            r.records.push_back(on_device(index, w, k, at(call0), at(call1), at(dev0), at(dev1)));
        }
    return r;
}

// Five trials of the baseline and of the four workers, interleaved. The baseline is stretched to
// the four workers' 8.4 s, so both move 8 GB in 8.4 s, and each trial a little more or less
// (trials drift); the four workers' run then by `stretch` more.
Analysis base_and_four(double stretch, double drift = 1) {
    const double base_drift[] = {-0.02, 0.005, 0.02, -0.005, 0.01};
    const double four_drift[] = {0.015, -0.015, 0.0, -0.01, 0.025};
    std::vector<RunResult> runs;
    for (int t = 0; t < 5; ++t) {
        runs.push_back(
            one_worker_base(int(runs.size()), t + 1, 1.05 * (1 + drift * base_drift[t])));
        runs.push_back(four_workers(int(runs.size()), t + 1, false,
                                    stretch * (1 + drift * four_drift[t])));
    }
    return analyzed(runs);
}

}  // namespace

TEST_CASE("#3 same aggregate, slower copies: a mechanism only with its own numbers",
          "[report][explain]") {
    // One trial: worded as that trial's observation, never "without falling".
    const Analysis turns = analyzed({one_worker_base(0, 1), four_workers(1, 1, false)});
    CHECK(says(turns.runs[1].findings,
               "in this trial the aggregate was within the runs' noise (+-11%) of the "
               "baseline's ('base') while per-copy p50 was 4.00x lower; whether the aggregates "
               "differ is not tested with these trials; the copies took turns on the device"));
    CHECK_FALSE(says(turns.runs[1].findings, "without the bytes per second falling"));
    CHECK_FALSE(says(turns.summary, "understates"));
    const Analysis shared = analyzed({one_worker_base(0, 1), four_workers(1, 1, true)});
    // 32 s of transfers over 8.4 s.
    CHECK(says(shared.runs[1].findings,
               "the copies shared the device (device-side "
               "concurrency 3.8)"));
    CHECK_FALSE(says(shared.runs[1].findings, "took turns"));
    CHECK_FALSE(says(shared.summary, "hand-off"));
}

TEST_CASE("#3 same aggregate, slower copies: 'without falling' only where the trials agree",
          "[report][explain]") {
    // Five trials with the same aggregates but for drift of 2 %: the test finds no difference,
    // each trial says so, and the interval of the ratio rules out a fall of more than 5 %.
    const Analysis same = base_and_four(1.0);
    REQUIRE(same.groups[1].vs_baseline);
    const TrialComparison& c = *same.groups[1].vs_baseline;
    CHECK(c.finding == TrialComparison::Finding::no_difference);
    REQUIRE(c.ci_low);
    CHECK(*c.ci_low >= 0.95);
    for (size_t i = 1; i < same.runs.size(); i += 2) {
        CHECK(says(same.runs[i].findings,
                   "aggregate not different from the baseline's across trials (no difference "
                   "found, 5 trials) but per-copy p50 "));
        CHECK(says(same.runs[i].findings,
                   "x lower than the baseline's ('base'): each copy took longer without the bytes "
                   "per second falling by more than 5% (95% CI of the aggregate ratio [" +
                       fmtx::ratio(*c.ci_low) + ", " + fmtx::ratio(*c.ci_high) + "])"));
    }
    // With trials each label's own line says it; the summary does not list them again.
    CHECK_FALSE(says(same.summary, "per-copy bandwidth understates"));
    // Three times that drift: still no difference found, but "no difference found" is not "no
    // fall": the interval allows one larger than 5 %, and the sentence says so.
    const Analysis wide = base_and_four(1.0, 3.0);
    REQUIRE(wide.groups[1].vs_baseline);
    const TrialComparison& w = *wide.groups[1].vs_baseline;
    CHECK(w.finding == TrialComparison::Finding::no_difference);
    REQUIRE(w.ci_low);
    CHECK(*w.ci_low < 0.95);
    CHECK(says(wide.runs[1].findings,
               "each copy took longer; the aggregate's 95% CI [" + fmtx::ratio(*w.ci_low) + ", " +
                   fmtx::ratio(*w.ci_high) + "] allows a fall of up to " +
                   fmtx::percent(1 - *w.ci_low) + ", so whether the bytes per second fell is open"));
    CHECK_FALSE(says(wide.runs[1].findings, "without the bytes per second falling"));
    // 5 % fewer bytes per second in every trial: inside each run's noise (+-11 %), but the trials
    // call it slower, so no run says the aggregate stayed the same.
    const Analysis slower = base_and_four(1.05);
    REQUIRE(slower.groups[1].vs_baseline);
    CHECK(slower.groups[1].vs_baseline->finding == TrialComparison::Finding::slower);
    CHECK(slower.runs[1].vs_baseline->within_noise);
    for (const RunAnalysis& a : slower.runs)
        CHECK_FALSE(says(a.findings, "aggregate"));
    CHECK_FALSE(says(slower.summary, "understates"));
}

TEST_CASE("#4 a slow call that waited is queued, not erratic", "[report][explain]") {
    auto slow_call = [](int64_t wait, int64_t transfer) {
        RunResult r = run(0, "python", 1);
        r.backend_used = "cuda";
        int64_t t = 0;
        for (int k = 0; k < 9; ++k) {
            const int64_t w = k == 4 ? wait : 10 * kMs, x = k == 4 ? transfer : 140 * kMs;
            r.records.push_back(on_device(0, 0, k, t, t + w + x, t + w, t + w + x));
            t += w + x + kMs;
        }
        return analyzed({r}).runs[0];
    };
    const RunAnalysis queued = slow_call(2526 * kMs, 142 * kMs);
    CHECK(says(queued.findings,
               "queued: the slowest call took 2.67 s (18x the median "
               "150 ms): 2.53 s waiting before the device started, 142 ms "
               "moving bytes (a transfer's median is 140 ms)"));
    CHECK_FALSE(says(queued.findings, "erratic"));
    const RunAnalysis erratic = slow_call(10 * kMs, 2600 * kMs);
    CHECK(says(erratic.findings,
               "erratic: the slowest transfer took 2.6 s (19x the median "
               "transfer 140 ms) in a call of 2.61 s"));
    CHECK_FALSE(says(erratic.findings, "queued"));
}

namespace {

// Trials of a one-thread run and a four-thread run of the same scaling key; the k-th trial's
// aggregates are one_GBps[k] and four_GBps[k] (8 GB each run).
Analysis scaling_trials(const std::vector<double>& one_GBps, const std::vector<double>& four_GBps) {
    Results res;
    for (size_t k = 0; k < one_GBps.size(); ++k) {
        for (int threads : {1, 4}) {
            RunResult r = run(int(res.runs.size()), "host", threads, "same key");
            r.position.label = threads == 1 ? "one" : "four";
            r.position.trial = int(k) + 1;
            const double GBps = threads == 1 ? one_GBps[k] : four_GBps[k];
            const auto each = int64_t(double(threads) * double(kS) / GBps);
            for (int w = 0; w < threads; ++w)
                back_to_back(r, w, 0, std::vector<int64_t>(8 / threads, each));
            res.runs.push_back(r);
        }
    }
    return analyze(res);
}

}  // namespace

TEST_CASE("#5 scaling across trials: a direction rests on the sign test of the paired trials",
          "[report][explain]") {
    // Six trials, every pair above 1: the sign test reaches 5 % (p = 2 / 2^6).
    const Analysis six = scaling_trials({15.5, 18.0, 22.3, 17.1, 20.0, 19.0},
                                        {26.2, 30.0, 33.3, 28.4, 31.0, 30.4});
    CHECK(says(six.runs[1].findings,
               "more threads, more bytes per second: 1.63x for 4 threads against one thread "
               "('one') (median of 6 paired trials' ratios, above 1 in 6 of 6: 1.49x to 1.69x; "
               "sign test p = 0.0312)"));
    CHECK_FALSE(says(six.runs[1].findings, "within noise"));
    // Five such trials cannot reach it (p = 0.0625): the sentence says so, and no direction.
    const Analysis five =
        scaling_trials({15.5, 18.0, 22.3, 17.1, 20.0}, {26.2, 30.0, 33.3, 28.4, 31.0});
    CHECK(says(five.runs[1].findings,
               "scaling 1.66x for 4 threads against one thread ('one'): above 1 in 5 of 5 paired "
               "trials (1.49x to 1.69x), not significant: sign test p = 0.0625 (all trials one "
               "way reach 5 % from 6 trials)"));
    CHECK_FALSE(says(five.runs[1].findings, "more threads"));
    // Silent: one trial tells nothing across trials (the table has the ratio).
    const Analysis one = scaling_trials({15.5}, {26.2});
    CHECK_FALSE(says(one.runs[1].findings, "scaling"));
    CHECK_FALSE(says(one.runs[1].findings, "more threads"));
}

TEST_CASE("#5 scaling is paired by trial: few trials all one way are not a direction",
          "[report][explain]") {
    const Analysis two = scaling_trials({15.5, 18.0}, {26.2, 30.0});
    CHECK(says(two.runs[1].findings,
               "scaling 1.68x for 4 threads against one thread ('one'): above 1 in 2 of 2 paired "
               "trials (1.67x to 1.69x), not significant: sign test p = 0.5"));
    CHECK_FALSE(says(two.runs[1].findings, "more threads"));
    // Three trials whose every pair moved the same way: still p = 0.25.
    const Analysis three = scaling_trials({20.0, 10.0, 40.0}, {7.0, 5.5, 27.2});
    CHECK(says(three.runs[1].findings,
               "scaling 0.55x for 4 threads against one thread ('one'): below 1 in 3 of 3 paired "
               "trials (0.35x to 0.68x), not significant: sign test p = 0.25"));
    CHECK_FALSE(says(three.runs[1].findings, "fewer bytes per second"));
    // Pairs that go both ways: no consistent difference.
    const Analysis mixed = scaling_trials({20.0, 10.0, 40.0}, {24.0, 8.0, 44.0});
    CHECK(says(mixed.runs[1].findings,
               "the trials' ratios go both ways (0.80x to 1.20x): no consistent difference in 3 "
               "trials"));
}

TEST_CASE("#6 scaling: trials paired by number, and 0.98x in one trial is nothing",
          "[report][explain]") {
    const Analysis one = scaling_trials({55.11}, {54.83});
    CHECK_FALSE(says(one.runs[1].findings, "fewer"));
    // Every four-thread trial below its own trial's one-thread run, 2-4 % apart, in six trials:
    // fewer, each trial against its own trial's one-thread run.
    const Analysis six = scaling_trials({56.0, 55.5, 56.5, 55.8, 56.2, 56.1},
                                        {54.0, 54.5, 54.2, 54.8, 54.4, 54.6});
    for (size_t i = 1; i < six.runs.size(); i += 2) {
        CHECK(six.runs[i].scaling_reference == int(i - 1));  // the same trial's one thread
        CHECK(says(six.runs[i].findings, "more threads, fewer bytes per second: 0.97x"));
    }
    // Half a percent apart: the median is within 1 %, whatever the bands.
    const Analysis close =
        scaling_trials({55.0, 54.0, 56.0, 55.5, 54.5}, {54.7, 53.7, 55.7, 55.2, 54.2});
    CHECK(says(close.runs[1].findings, ": the median within 1 % of 1 (0.99x to 0.99x in 5 paired "
                                       "trials)"));
    CHECK_FALSE(says(close.runs[1].findings, "fewer"));
}

namespace {

// Two workers on two devices, four copies each, one after the other; worker w's k-th transfer
// takes ms(w, k) milliseconds.
template <class Ms>
RunResult two_served(int index, int trial, Ms ms) {
    RunResult r = run(index, "host", 2);
    r.backend_used = "cuda";
    r.position.label = "two";
    r.position.trial = trial;
    for (int k = 0; k < 4; ++k)
        for (int w = 0; w < 2; ++w) {
            const int64_t t = k * kS, d = ms(w, k) * kMs;
            r.records.push_back(on_device(index, w, k, t, t + d, t, t + d, w));
        }
    return r;
}

}  // namespace

TEST_CASE("#7 unequal service is about the rate served, not who started first",
          "[report][explain]") {
    // Silent: every worker moves the same bytes at the same rate, one after the other (the
    // old rule called worker 3, which went first, 44 % of the bandwidth).
    const RunAnalysis turns = analyzed({queued_on_one_device(0, 4, 2, 10 * kMs)}).runs[0];
    CHECK(turns.service_jain > 0.99);
    CHECK_FALSE(says(turns.findings, "unequal"));
    CHECK_FALSE(says(turns.findings, "unfair"));
    // Fires: worker 1's transfers take four times as long as worker 0's.
    const auto slow_one = [](int w, int) { return w == 1 ? 400 : 100; };
    const RunAnalysis unequal = analyzed({two_served(0, 1, slow_one)}).runs[0];
    CHECK(says(unequal.findings,
               "unequal service in its one trial, also without the copy served slowest: Jain 0.74 over "
               "the workers' bytes per second of their own transfer time (0.74 without it); "
               "worker 1 moved its bytes at 40% of the workers' mean rate"));
}

TEST_CASE("#7 unequal service holds without the copy served slowest and in every trial",
          "[report][explain]") {
    // One call of worker 1 took 30 times as long as the others: Jain 0.80 with it, 1.00 without.
    const auto one_call = [](int w, int k) { return w == 1 && k == 2 ? 3000 : 100; };
    const RunAnalysis a = analyzed({two_served(0, 1, one_call)}).runs[0];
    CHECK(a.service_jain < 0.9);
    REQUIRE(a.service_jain_without_slowest);
    CHECK(*a.service_jain_without_slowest > 0.99);
    CHECK_FALSE(says(a.findings, "unequal"));
    // Worker 1 served worse in trial 1, equal service in trial 2: not in every trial.
    const auto equal = [](int, int) { return 100; };
    const auto slow_one = [](int w, int) { return w == 1 ? 400 : 100; };
    const Analysis half = analyzed({two_served(0, 1, slow_one), two_served(1, 2, equal)});
    CHECK_FALSE(says(half.runs[0].findings, "unequal"));
    // Unequal in both trials, but a different worker served least in each: none is named.
    const auto slow_zero = [](int w, int) { return w == 0 ? 400 : 100; };
    const Analysis swapped = analyzed({two_served(0, 1, slow_one), two_served(1, 2, slow_zero)});
    CHECK(says(swapped.runs[0].findings,
               "unequal service in every trial (2), also without the copy served slowest"));
    CHECK(says(swapped.runs[0].findings,
               "the worker served least differed between trials (workers 0, 1)"));
    CHECK_FALSE(says(swapped.runs[0].findings, "moved its bytes at"));
}

TEST_CASE("#8 a shared machine only over a window its ticks can resolve", "[report][explain]") {
    auto with_activity = [](HostActivity h) {
        RunResult r = run(0, "host", 1);
        back_to_back(r, 0, 0, {kS, kS});
        r.host_activity = h;
        return analyzed({r}).runs[0].findings;
    };
    // Silent: 15 ms on 2 CPUs: /proc/stat's 10 ms ticks leave +-2.7 CPUs of doubt.
    CHECK_FALSE(says(with_activity(HostActivity{"copies", 15 * kMs, 2, 1.6, 0.4, 1.2, 0}),
                     "shared machine"));
    // Silent: busy below xferlab's own time is no reading to trust.
    CHECK_FALSE(
        says(with_activity(HostActivity{"copies", kS, 16, 1.0, 2.0, 0.6, 0}), "shared machine"));
    // Fires: 1 s on 16 CPUs (+-0.32), others 1.3.
    CHECK(says(with_activity(HostActivity{"copies", kS, 16, 6.4, 5.1, 1.3, 0}),
               "shared machine: other processes kept 1.3 of 16 CPUs busy while the copies ran "
               "(xferlab 5.1; +-0.32 CPUs at /proc/stat's 10 ms ticks over 1 s)"));
    // Steal alone needs 5 % of CPU time (notable_steal) over 100 ticks per CPU: 1 s is enough,
    // 0.5 s is not, and 1.2 % with no other process busy is no shared machine.
    CHECK(says(with_activity(HostActivity{"run", kS, 16, 5.1, 5.1, 0, 0.06}), "steal"));
    CHECK_FALSE(
        says(with_activity(HostActivity{"run", kS / 2, 16, 5.1, 5.1, 0, 0.06}), "shared machine"));
    CHECK_FALSE(
        says(with_activity(HostActivity{"run", kS, 16, 5.1, 5.1, 0, 0.012}), "shared machine"));
}

TEST_CASE("#9 warm-ups in the window: 'took turns' only where the device shows it",
          "[report][explain]") {
    // Fires: two workers take turns on one device; worker 1's warm-up inside the window.
    RunResult turns = run(0, "host", 2);
    turns.backend_used = "cuda";
    turns.records = {on_device(0, 0, -1, 0, kS, 0, kS, 0, true),
                     on_device(0, 0, 0, kS, 2 * kS, kS, 2 * kS),
                     on_device(0, 1, -1, 2 * kS, 3 * kS, 2 * kS, 3 * kS, 0, true),
                     on_device(0, 0, 1, 3 * kS, 4 * kS, 3 * kS, 4 * kS),
                     on_device(0, 1, 0, 4 * kS, 5 * kS, 4 * kS, 5 * kS)};
    const Analysis a = analyzed({turns});
    CHECK(says(a.summary, "1 warm-up copy overlapped the measurement window (run 0)"));
    // The warm-ups' runs are the runs whose devices took turns: said once.
    CHECK(says(a.summary,
               "; every device of these runs had one transfer at a time: the workers took turns"));
    // Silent: each worker on its own device, copies overlapping: a warm-up in the window, no
    // turns taken.
    RunResult apart = run(0, "host", 2);
    apart.backend_used = "cuda";
    apart.records = {on_device(0, 0, 0, 0, 2 * kS, 0, 2 * kS, 0),
                     on_device(0, 1, -1, kS / 2, kS, kS / 2, kS, 1, true),
                     on_device(0, 1, 0, kS, 2 * kS, kS, 2 * kS, 1)};
    const Analysis b = analyzed({apart});
    CHECK(says(b.summary, "1 warm-up copy overlapped the measurement window"));
    CHECK_FALSE(says(b.summary, "took turns"));
}

namespace {

// Two workers on one device: one at a time (`overlap` false) or both at once.
RunResult two_workers(int index, const std::string& launcher, nlohmann::json settings,
                      const std::string& label, bool overlap) {
    RunResult r = plan_run(index, launcher, 2, std::move(settings), label);
    for (int k = 0; k < 3; ++k)
        for (int w = 0; w < 2; ++w) {
            const int64_t start = overlap ? k * kS : (2 * k + w) * kS;
            r.records.push_back(on_device(index, w, k, start, start + kS, start, start + kS));
        }
    return r;
}

}  // namespace

TEST_CASE("#10 'per context' needs a transfer.context switch, not a process launcher",
          "[report][explain]") {
    const nlohmann::json primary = {{"transfer", {{"context", "primary"}}}};
    const nlohmann::json own = {{"transfer", {{"context", "per-worker"}}}};
    const Analysis switched = analyzed({two_workers(0, "host", primary, "primary", false),
                                        two_workers(1, "host", own, "per-worker", true)});
    CHECK(says(switched.summary,
               "with transfer.context = primary the threads never overlapped "
               "on a device (run 0), with per-worker contexts they did (run 1): "
               "the serialization is per context"));
    // Threads against worker processes differ in more than the context: nothing said.
    const Analysis processes = analyzed({two_workers(0, "host", primary, "threads", false),
                                         two_workers(1, "process", primary, "processes", true)});
    CHECK_FALSE(says(processes.summary, "per context"));
}

TEST_CASE("#11 gil = release: not held during the calls, nothing said of each copy",
          "[report][explain]") {
    RunResult r = queued_on_one_device(0, 2, 6, 10 * kMs);
    r.settings =
        nlohmann::json{{"launcher", "python"}, {"payload", "threads_batch.py"}, {"gil", "release"}};
    const auto why = analyzed({r}).runs[0].findings;
    CHECK(says(why,
               "gil = release: the GIL was not held during the copy calls, so it did not "
               "serialize them"));
    CHECK_FALSE(says(why, "during each copy"));
    CHECK_FALSE(says(why, "lengthens the gap"));
    // Silent where no device serialized.
    RunResult apart =
        two_workers(0, "python", {{"payload", "threads.py"}, {"gil", "release"}}, "python", true);
    CHECK_FALSE(says(analyzed({apart}).runs[0].findings, "gil = release"));
}

namespace {

// `owners` in device order, each copy 10 ms; worker w returns to the device after gap[w].
RunResult device_turns(int index, const std::vector<int>& owners, const std::vector<int64_t>& gap,
                       nlohmann::json settings, const std::string& label) {
    RunResult r = plan_run(index, "host", int(gap.size()), std::move(settings), label);
    std::vector<int64_t> last(gap.size(), -1);
    std::vector<int> done(gap.size(), 0);
    for (size_t slot = 0; slot < owners.size(); ++slot) {
        const int w = owners[slot];
        const int64_t end = int64_t(slot + 1) * 10 * kMs;
        const int64_t start = last[size_t(w)] < 0 ? 0 : last[size_t(w)] + gap[size_t(w)];
        r.records.push_back(
            on_device(index, w, done[size_t(w)]++, start, end, end - 10 * kMs, end));
        last[size_t(w)] = end;
    }
    return r;
}

// Workers 0 and 1 alternating with runs of `a` and `b` copies, `total` copies in all.
std::vector<int> runs_of(int a, int b, size_t total = 24) {
    std::vector<int> owners;
    while (owners.size() < total) {
        for (int i = 0; i < a; ++i) owners.push_back(0);
        for (int i = 0; i < b; ++i) owners.push_back(1);
    }
    owners.resize(total);
    return owners;
}

}  // namespace

TEST_CASE("#12 'the gap decides' needs a threads.between switch and bands apart",
          "[report][explain]") {
    const nlohmann::json none = {{"threads", {{"between", "none"}}}};
    const nlohmann::json spin = {{"threads", {{"between", "spin:50us"}}}};
    // Silent: hand-off rates 0.50 and 0.46 with gaps 2.63 and 2.67 us, and no switch between
    // the runs (their launchers differ).
    RunResult a = device_turns(0, runs_of(2, 2), {2630, 2630}, none, "openmp");
    RunResult b = device_turns(1, runs_of(2, 3), {2670, 2670}, none, "python batch");
    b.settings.launcher = "python";
    b.position.scaling_key =
        nlohmann::json{{"launcher", "python"}, {"threads", {{"between", "none"}}}}.dump();
    CHECK_FALSE(says(analyzed({a, b}).summary, "decides"));
    // Fires: the same threads, between none and spin:50us, rates near 0 and 1, gaps 20x apart.
    const Analysis on =
        analyzed({device_turns(0, runs_of(12, 12), {3 * kUs, 3 * kUs}, none, "none"),
                  device_turns(1, runs_of(1, 1), {60 * kUs, 60 * kUs}, spin, "spin")});
    CHECK(says(on.summary, "run 0 (threads.between = none, gap p50 3 us) kept the device"));
    CHECK(says(on.summary, "run 1 (threads.between = spin:50us, gap p50 60 us) handed it over"));
}

TEST_CASE("#13 calls under a held GIL are not called short", "[report][explain]") {
    // Two workers whose short calls start 12 ms apart and never overlap.
    auto short_calls = [](const std::string& gil) {
        RunResult r = run(0, "python", 2);
        back_to_back(r, 0, 0, {kMs, kMs});
        back_to_back(r, 1, 12 * kMs, {kMs, kMs});
        r.settings =
            nlohmann::json{{"launcher", "python"}, {"payload", "threads.py"}, {"gil", gil}};
        return analyzed({r}).runs[0].findings;
    };
    CHECK(says(short_calls("release"), "calls never overlapped, but they had little chance to"));
    const auto held = short_calls("hold");
    CHECK_FALSE(says(held, "little chance"));  // the held GIL spreads the first calls itself
    CHECK(says(held, "calls never overlapped: one copy call in flight at a time"));
    CHECK(says(held, "gil = hold, and no run of this plan differs from it in gil alone"));
}

TEST_CASE("#14 verdicts say not tested, not testable and negligible", "[report][explain]") {
    // One trial: not tested. The trial tests (test_report_trials.cpp) cover 3 vs 3 (not
    // testable), 0.1 % (negligible) and 5 vs 5 (slower).
    const Analysis one = scaling_trials({10}, {30});
    REQUIRE(one.groups.size() == 2);
    REQUIRE(one.groups[1].vs_baseline);
    CHECK(one.groups[1].vs_baseline->verdict.find("not tested (1 trial") != std::string::npos);
    CHECK_FALSE(says(one.summary, "no difference found"));
    // Four trials a side, every trial apart: found.
    const Analysis four = scaling_trials({10, 11, 12, 13}, {30, 31, 32, 33});
    CHECK(four.groups[1].vs_baseline->finding == TrialComparison::Finding::faster);
}

TEST_CASE("#15 kept and handed off need their bands and enough copies", "[report][explain]") {
    const nlohmann::json none = {{"threads", {{"between", "none"}}}};
    // Silent: run lengths 2.0 and 1.67 (runs of 2, 2, 1): no hander, so no "sooner" either.
    std::vector<int> owners;
    for (int i = 0; i < 4; ++i) owners.insert(owners.end(), {0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1});
    const auto close =
        analyzed({device_turns(0, owners, {3 * kUs, 10 * kUs}, none, "close")}).runs[0];
    REQUIRE(close.workers.size() == 2);
    CHECK(close.workers[0].run_length == 2.0);
    CHECK(std::abs(close.workers[1].run_length - 5.0 / 3) < 1e-9);
    CHECK(says(close.findings, "1 of 2 workers kept it, 0 handed it off"));  // counted neither
    CHECK_FALSE(says(close.findings, "returned sooner"));
    // Fires: runs of 4 and 1, gaps 3 and 10 us: a keeper, a hander, the keeper sooner.
    const auto apart =
        analyzed({device_turns(0, runs_of(4, 1, 40), {3 * kUs, 10 * kUs}, none, "apart")}).runs[0];
    CHECK(says(apart.findings, "1 of 2 workers kept it, 1 handed it off after about one copy"));
    REQUIRE(apart.workers.size() == 2);
    CHECK(apart.workers[0].run_length == 4);  // the keeper, as --full's worker rows name it
    CHECK(apart.workers[1].run_length == 1);
    CHECK(says(apart.findings, "the workers that returned sooner kept it"));
}

TEST_CASE("waiting-not-moving only where another transfer held the device during the wait",
          "[report][explain]") {
    // Fires: four calls at once, the device busy with one of them throughout every wait.
    const Analysis queued = analyzed({queued_on_one_device(0, 4, 3, 10 * kMs)});
    CHECK(queued.runs[0].devices[0].wait_busy_fraction == 1.0);
    CHECK(says(queued.runs[0].findings,
               "another transfer on it for 100% of that wait, so per-copy bandwidth there "
               "measures waiting"));
    // Silent: four calls at once, but each transfer of 2 ms comes late, the device idle for
    // most of every wait (12 of 92 ms): the calls waited, not for the device.
    RunResult late = run(0, "python", 4);
    late.backend_used = "cuda";
    for (int k = 0; k < 2; ++k)
        for (int w = 0; w < 4; ++w) {
            const int64_t t0 = k * 40 * kMs, dev1 = t0 + (10 * w + 10) * kMs;
            late.records.push_back(on_device(0, w, k, t0, dev1, dev1 - 2 * kMs, dev1));
        }
    const Analysis an = analyzed({late});
    const DeviceStats& d = an.runs[0].devices[0];
    CHECK(d.host_concurrency >= 1.5);
    CHECK(d.peak_in_flight == 1);
    CHECK(std::abs(d.wait_busy_fraction - 12.0 / 92) < 1e-9);
    CHECK_FALSE(says(an.runs[0].findings, "measures waiting"));
    CHECK(says(an.runs[0].findings, "calls wait "));  // the observation alone
}

TEST_CASE("idle window: the share of the window with no call in flight, and the start spread",
          "[report][explain]") {
    // Worker 1 starts 800 ms after worker 0, whose copies end at 200 ms: 60 % of 1 s idle.
    RunResult free_start = run(0, "host", 2);
    back_to_back(free_start, 0, 0, {100 * kMs, 100 * kMs});
    back_to_back(free_start, 1, 800 * kMs, {100 * kMs, 100 * kMs});
    const RunAnalysis a = analyzed({free_start}).runs[0];
    CHECK(std::abs(a.idle_fraction - 0.6) < 1e-9);
    CHECK(says(a.findings,
               "no copy call was in flight for 60% of the measurement window (the workers' first "
               "calls spread over 800 ms): the aggregate divides by time in which nothing moved"));
    // Silent: both start together (a barrier), no gap in the window.
    RunResult barrier = run(0, "host", 2);
    back_to_back(barrier, 0, 0, {100 * kMs, 100 * kMs});
    back_to_back(barrier, 1, 0, {100 * kMs, 100 * kMs});
    const RunAnalysis b = analyzed({barrier}).runs[0];
    CHECK(b.idle_fraction == 0);
    CHECK_FALSE(says(b.findings, "in flight for"));
}

namespace {

// Trial `trial` of a python-family run: two workers copying back to back, `gap` apart after each
// copy, with `work_us` in its params; settings differ between such runs in launcher and params
// alone.
RunResult interpreter_run(int index, int trial, const std::string& launcher, int work_us,
                          int64_t gap) {
    RunResult r = run(index, launcher, 2);
    r.position.label = launcher + " work " + std::to_string(work_us);
    r.position.trial = trial;
    const nlohmann::json settings = {{"launcher", launcher},
                                     {"payload", "threads.py"},
                                     {"params", {{"work_us", work_us}}}};
    r.settings = settings;
    r.position.scaling_key = settings.dump();
    for (int w = 0; w < 2; ++w) {
        int64_t t = w * kMs / 2;
        for (int k = 0; k < 8; ++k) {
            r.records.push_back(record(index, w, k, t, t + kMs, kGB / 1000));
            t += kMs + gap;
        }
    }
    return r;
}

// The four runs of each trial: python and `other`, without and with work, `gaps` in that order.
Analysis interpreters(const std::string& other, const std::vector<std::vector<int64_t>>& gaps) {
    std::vector<RunResult> runs;
    for (size_t t = 0; t < gaps.size(); ++t) {
        const int trial = int(t) + 1;
        runs.push_back(interpreter_run(int(runs.size()), trial, "python", 0, gaps[t][0]));
        runs.push_back(interpreter_run(int(runs.size()), trial, other, 0, gaps[t][1]));
        runs.push_back(interpreter_run(int(runs.size()), trial, "python", 50, gaps[t][2]));
        runs.push_back(interpreter_run(int(runs.size()), trial, other, 50, gaps[t][3]));
    }
    return analyzed(runs);
}

}  // namespace

TEST_CASE("interpreter-gap: the launcher alone moved the gap, in every trial and clearly apart",
          "[report][explain]") {
    // python's threads come back after 40 us, python-ft's after 10 us, in both trials.
    const Analysis apart =
        interpreters("python-ft", {{40 * kUs, 10 * kUs, 40 * kUs, 10 * kUs},
                                   {42 * kUs, 11 * kUs, 42 * kUs, 11 * kUs}});
    CHECK(says(apart.summary,
               "python-ft workers (no GIL; 'python-ft work 0' (every trial)) called again after "
               "a copy in p50 10.5 us against 41 us for python workers (one GIL for the process; "
               "'python work 0' (every trial)), at least 1.5x sooner in every trial (2); the runs "
               "differ in the launcher alone"));
    // Two trials: the cause says it rests on fewer than three.
    CHECK(says(apart.summary, "moved the gap; from 2 trials only (a cause needs 3)"));
    // One trial: nothing across runs.
    const Analysis one = interpreters("python-ft", {{40 * kUs, 10 * kUs, 40 * kUs, 10 * kUs}});
    CHECK_FALSE(says(one.summary, "called again after a copy"));
    // 1.3x apart in the second trial: no claim.
    const Analysis close =
        interpreters("python-ft", {{40 * kUs, 10 * kUs, 40 * kUs, 10 * kUs},
                                   {40 * kUs, 31 * kUs, 40 * kUs, 31 * kUs}});
    CHECK_FALSE(says(close.summary, "called again after a copy"));
}

TEST_CASE("gil-serializes-work: work between copies lengthens the gap more under one GIL",
          "[report][explain]") {
    // Work adds 240 us under python and 50 us under python-subinterp, in both trials.
    const Analysis turns =
        interpreters("python-subinterp", {{10 * kUs, 10 * kUs, 250 * kUs, 60 * kUs},
                                          {12 * kUs, 11 * kUs, 262 * kUs, 61 * kUs}});
    CHECK(says(turns.summary,
               "Python work between copies (params.work_us = 50) lengthened the gap after a copy "
               "by 245 us under python (one GIL for the process; 'python work 50' (every trial)) "
               "and by 50 us under python-subinterp (a GIL per worker; 'python-subinterp work 50' "
               "(every trial)), medians of 2 trials, at least "
               "1.5x more under one GIL in every trial: under one GIL the workers' Python work "
               "took turns"));
    // Work adds about as much either way: silent.
    const Analysis alike =
        interpreters("python-subinterp", {{10 * kUs, 10 * kUs, 250 * kUs, 200 * kUs},
                                          {12 * kUs, 11 * kUs, 262 * kUs, 211 * kUs}});
    CHECK_FALSE(says(alike.summary, "took turns"));
}
