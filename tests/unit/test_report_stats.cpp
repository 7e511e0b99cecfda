// report/analysis: statistics against hand-computed values.
#include <cmath>
#include <numbers>
#include <sstream>
#include <string>

#include "report/analysis/analysis.hpp"
#include "report/explain/analyze.hpp"
#include "report/analysis/compare.hpp"
#include "report/analysis/stats.hpp"
#include "report/render/reporter.hpp"
#include "support/catch.hpp"
#include "support/text.hpp"
#include "support/values.hpp"
#include "test_report_fixtures.hpp"

using namespace xfer;
using namespace xfer::testing;
using xfer::test::near;
using xfer::test::squeeze;

namespace {

bool any_line_contains(const std::vector<std::string>& lines, const std::string& part) {
    for (const auto& l : lines) {
        if (l.find(part) != std::string::npos) return true;
    }
    return false;
}

bool any_line_contains(const std::vector<Finding>& findings, const std::string& part) {
    return any_line_contains(texts(findings), part);
}

// Durations alternating 0.9 and 1.1 of `unit`: mean unit, CV sqrt(8/7)·0.1 for 8 copies.
std::vector<int64_t> jittered(int64_t unit, int copies, bool high_first = false) {
    std::vector<int64_t> d;
    for (int i = 0; i < copies; ++i) {
        const bool high = (i % 2 == 0) == high_first;
        d.push_back(high ? unit * 11 / 10 : unit * 9 / 10);
    }
    return d;
}

}  // namespace

TEST_CASE("percentiles interpolate linearly between closest ranks", "[report][stats]") {
    const std::vector<double> v{1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    CHECK(near(stats::percentile_sorted(v, 0.10), 1.9));  // h = 0.9
    CHECK(near(stats::percentile_sorted(v, 0.50), 5.5));  // h = 4.5
    CHECK(near(stats::percentile_sorted(v, 0.90), 9.1));  // h = 8.1
    CHECK(stats::percentile_sorted(v, 0) == 1);
    CHECK(stats::percentile_sorted(v, 1) == 10);
    CHECK(stats::percentile_sorted({7}, 0.5) == 7);
    CHECK(stats::percentile_sorted({}, 0.5) == 0);
}

TEST_CASE("distribution: mean, sample stddev and CV", "[report][stats]") {
    const Distribution d = distribution({9, 2, 4, 4, 5, 5, 7, 4});  // unsorted on purpose
    CHECK(d.n == 8);
    CHECK(d.min == 2);
    CHECK(d.max == 9);
    CHECK(near(d.mean, 5));
    CHECK(near(d.stddev, std::sqrt(32.0 / 7)));  // squared deviations sum to 32, n-1 = 7
    CHECK(near(d.cv, std::sqrt(32.0 / 7) / 5));
    CHECK(near(d.p50, 4.5));          // sorted 2 4 4 4 5 5 7 9, h = 3.5
    CHECK(near(d.p10, 2 + 0.7 * 2));  // h = 0.7 between 2 and 4
    CHECK(near(d.p90, 7 + 0.3 * 2));  // h = 6.3 between 7 and 9
    const Distribution empty = distribution({});
    CHECK(empty.n == 0);
    CHECK(empty.cv == 0);
}

TEST_CASE("Jain's index", "[report][stats]") {
    CHECK(near(stats::jain_index({1, 1, 1, 1}), 1));
    CHECK(near(stats::jain_index({1, 0, 0, 0}), 0.25));         // 1/n: one takes all
    CHECK(near(stats::jain_index({1, 2, 3, 4}), 100.0 / 120));  // 10^2 / (4 * 30)
    CHECK(stats::jain_index({}) == 1);
}

TEST_CASE("concurrency of known intervals", "[report][stats]") {
    using I = stats::Interval;
    // Overlapping: 30 busy over a span of 20.
    CHECK(near(stats::mean_concurrency({I{0, 10}, I{5, 15}, I{10, 20}}), 1.5));
    CHECK(stats::peak_concurrency({I{0, 10}, I{5, 15}, I{10, 20}}) == 2);
    // Touching intervals (serialized copies) never count as two in flight.
    CHECK(near(stats::mean_concurrency({I{0, 10}, I{10, 20}, I{20, 30}}), 1.0));
    CHECK(stats::peak_concurrency({I{20, 30}, I{0, 10}, I{10, 20}}) == 1);
    // Fully parallel.
    CHECK(near(stats::mean_concurrency({I{0, 10}, I{0, 10}, I{0, 10}, I{0, 10}}), 4));
    CHECK(stats::peak_concurrency({I{0, 10}, I{0, 10}, I{0, 10}, I{0, 10}}) == 4);
    // A gap lowers the mean, not the peak.
    CHECK(near(stats::mean_concurrency({I{0, 10}, I{30, 40}}), 0.5));
    CHECK(stats::mean_concurrency({}) == 0);
}

TEST_CASE("noise rule: two standard errors of the log-ratio", "[report][stats]") {
    CHECK(near(stats::relative_standard_error(0.1, 25, false), 0.02));
    CHECK(near(stats::relative_standard_error(0.1, 25, true),
               0.02 * std::sqrt(std::numbers::pi / 2)));
    const double bound = stats::noise_bound(0.02, 0.02);
    CHECK(near(bound, 2 * std::sqrt(0.0008)));      // 0.0566
    CHECK(stats::within_noise(1.05, bound));        // ln 1.05 = 0.0488
    CHECK_FALSE(stats::within_noise(1.06, bound));  // ln 1.06 = 0.0583
    CHECK(stats::within_noise(1 / 1.05, bound));
    CHECK_FALSE(stats::within_noise(0, bound));
}

TEST_CASE("a run's window, aggregate, per-copy and per-worker figures", "[report][analysis]") {
    Results res;
    RunResult r = run(0, "host", 2);
    // Warm-up before the window: kept in the results, out of the statistics.
    r.records.push_back(record(0, 0, -1, -kS, 0, kGB, true));
    back_to_back(r, 0, 0, {kS, kS});          // 1 GB/s copies, done at 2 s
    back_to_back(r, 1, 0, {2 * kS, 2 * kS});  // 0.5 GB/s copies, done at 4 s
    res.runs.push_back(r);

    const Analysis an = analyze(res);
    REQUIRE(an.runs.size() == 1);
    const RunAnalysis& a = an.runs[0];
    CHECK(a.copies == 4);
    CHECK(a.warmup_copies == 1);
    CHECK(a.bytes == 4 * kGB);
    CHECK(near(a.window_s, 4));
    CHECK(near(a.aggregate_Bps, 1e9));  // 4 GB over 4 s
    // Per copy: 1, 1, 0.5, 0.5 GB/s.
    CHECK(a.per_copy_Bps.n == 4);
    CHECK(near(a.per_copy_Bps.p50, 0.75e9));
    CHECK(near(a.per_copy_Bps.p10, 0.5e9));  // h = 0.3 between 0.5 and 0.5
    CHECK(near(a.per_copy_Bps.p90, 1e9));    // h = 2.7 between 1 and 1
    CHECK(near(a.per_copy_Bps.cv, std::sqrt(0.25 / 3) / 0.75));
    CHECK(near(a.per_copy_ns.p50, 1.5 * kS));
    // 1 + 1 + 2 + 2 s of calls over 4 s; two in flight at most.
    CHECK(near(a.host_concurrency, 1.5));
    CHECK(a.host_peak == 2);
    CHECK_FALSE(a.device_concurrency.has_value());
    // Workers: own windows 2 s and 4 s.
    REQUIRE(a.per_worker_Bps.size() == 2);
    CHECK(near(a.per_worker_Bps[0], 1e9));
    CHECK(near(a.per_worker_Bps[1], 0.5e9));
    CHECK(near(a.workers[0].share, 2.0 / 3));
    CHECK(a.workers[1].tid == 1001);
    CHECK(near(a.workers[1].per_copy_Bps.mean, 0.5e9));
    CHECK(near(a.fairness_jain, 2.25 / 2.5));  // (1 + 0.5)^2 / (2 * (1 + 0.25))
    CHECK(near(a.service_jain, 2.25 / 2.5));   // host calls: served at 1 and 0.5 GB/s too
    CHECK(an.baseline_run == 0);
    CHECK(a.is_baseline);
    CHECK_FALSE(a.vs_baseline.has_value());
}

TEST_CASE("a planned worker without copies counts as unfair", "[report][analysis]") {
    Results res;
    RunResult r = run(0, "host", 4);
    for (int w = 0; w < 3; ++w) back_to_back(r, w, 0, {kS});
    res.runs.push_back(r);
    const RunAnalysis a = analyze(res).runs[0];
    REQUIRE(a.workers.size() == 4);
    CHECK(a.workers[3].copies == 0);
    CHECK(near(a.service_jain, 9.0 / 12));   // (3)^2 / (4 * 3) over the service rates
    CHECK(near(a.fairness_jain, 9.0 / 12));  // and over the own-window rates
    CHECK(any_line_contains(a.findings,
                            "unequal service in its one trial: worker 3 made no measured copy (Jain "
                            "0.75 over the workers' bytes per second of their own transfer time)"));
}

TEST_CASE("the Bandwidth table's Jain is over the workers' own-window rates, not their service",
          "[report][analysis]") {
    // Two workers call at 0; the device moves one copy at a time, 1 s each: worker 0's two
    // copies first, then worker 1's, whose first call waited 2 s. Both were served at 1 GB/s
    // (service Jain 1); over their own windows worker 0 moved 2 GB in 2 s, worker 1 in 4 s.
    Results res;
    RunResult r = run(0, "host", 2);
    const auto copy = [&](int w, int rep, int64_t call, int64_t transfer) {
        Record c = record(0, w, rep, call, transfer + kS, kGB);
        c.device = 0;
        c.device_start_ns = transfer;
        c.device_end_ns = transfer + kS;
        r.records.push_back(c);
    };
    copy(0, 0, 0, 0);
    copy(0, 1, kS, kS);
    copy(1, 0, 0, 2 * kS);
    copy(1, 1, 3 * kS, 3 * kS);
    res.runs.push_back(r);
    const Analysis an = analyze(res);
    const RunAnalysis& a = an.runs[0];
    CHECK(near(a.service_jain, 1));
    CHECK(near(a.fairness_jain, 2.25 / 2.5));  // over 1 and 0.5 GB/s
    std::ostringstream out;
    make_reporter("table", ReportDetail::full)->write(res, an, out);
    // The run's row: #, aggregate, per-copy p50 (p10-p90), CV 0.40, Jain, conc. host/dev.
    const std::string text = out.str();
    INFO(text);
    const size_t row = text.find("\n  0  1.00 GB/s  1.00 (0.533-1.00)");
    REQUIRE(row != std::string::npos);
    CHECK(squeeze(text.substr(row, text.find('\n', row + 1) - row)) ==
          "0 1.00 GB/s 1.00 (0.533-1.00) 0.40 0.90 1.5 / 1.0 -");
}

TEST_CASE(
    "a timed block that failed is no measured copy: not in the hand-off sequence, no gap "
    "before it, not in the pooled p50",
    "[report][analysis]") {
    // Worker 0 copies at 0, 2 and 4 s; worker 1 at 1 s, then a block at 3 s that raised.
    Results res;
    RunResult r = run(0, "host", 2);
    r.records.push_back(record(0, 0, 0, 0, kS, kGB));                 // 1 GB/s
    r.records.push_back(record(0, 1, 0, kS, 2 * kS, kGB));            // 1 GB/s
    r.records.push_back(record(0, 0, 1, 2 * kS, 5 * kS / 2, kGB));    // 2 GB/s
    r.records.push_back(record(0, 1, 1, 3 * kS, 31 * kS / 10, kGB));  // 10 GB/s, raised
    r.records.back().failed = true;
    r.records.push_back(record(0, 0, 2, 4 * kS, 9 * kS / 2, kGB));  // 2 GB/s
    res.runs.push_back(r);
    const Analysis an = analyze(res);
    const RunAnalysis& a = an.runs[0];
    CHECK(a.copies == 4);
    REQUIRE(a.handoffs.size() == 1);
    // The sequence 0, 1, 0, 0: two changes in three pairs (with the failed block: 4 in 4).
    CHECK(a.handoffs[0].copies == 4);
    CHECK(near(a.handoffs[0].handoff_rate, 2.0 / 3));
    // Worker 1's only gap ends in the failed block: no gap is counted.
    CHECK_FALSE(a.workers[1].gap_ns.has_value());
    // The measured copies' 1, 1, 2, 2 GB/s: p50 1.5 (with the failed block's 10: 2).
    REQUIRE(an.groups.size() == 1);
    CHECK(near(an.groups[0].pooled_p50_Bps, 1.5e9));
    CHECK(near(a.per_copy_Bps.p50, 1.5e9));
}

TEST_CASE("device-side concurrency per device, serialization explained", "[report][analysis]") {
    Results res;
    RunResult r = run(0, "python", 4);
    r.backend_used = "cuda";
    // Four calls start together; the device moves one at a time, 10 ms each.
    const int64_t ms = 1'000'000;
    for (int w = 0; w < 4; ++w) {
        Record rec = record(0, w, 0, 0, 40 * ms, kGB);
        rec.device = 0;
        rec.device_start_ns = w * 10 * ms;
        rec.device_end_ns = (w + 1) * 10 * ms;
        rec.device_timing = DeviceTiming::cupti;
        r.records.push_back(rec);
    }
    res.runs.push_back(r);
    const RunAnalysis a = analyze(res).runs[0];
    CHECK(near(a.host_concurrency, 4));
    REQUIRE(a.device_concurrency.has_value());
    CHECK(near(*a.device_concurrency, 1));
    CHECK(a.device_peak == 1);
    REQUIRE(a.devices.size() == 1);
    CHECK(a.devices[0].workers == 4);
    REQUIRE(a.device_per_copy_Bps.has_value());
    CHECK(near(a.device_per_copy_Bps->p50, 100e9));  // 1 GB in 10 ms
    REQUIRE(a.pre_device_ns.has_value());
    CHECK(near(a.pre_device_ns->p50, 15 * ms));  // 0, 10, 20, 30 ms
    CHECK(any_line_contains(a.findings,
                            "copies never overlapped on device 0: device-side peak 1 with 4 "
                            "workers (warm-ups included)"));
    CHECK(
        any_line_contains(a.findings,
                          "on device 0 calls overlapped (host-side concurrency 4.0) but transfers "
                          "did not (device-side 1.0, peak 1): calls waited 15 ms (p50, 38% of a "
                          "call) before the device started"));
    // Said per device: the run-wide line would say it twice.
    CHECK_FALSE(any_line_contains(a.findings, "calls wait 15 ms (p50)"));
}

TEST_CASE("device concurrency is the mean over devices, and peak the max", "[report][analysis]") {
    Results res;
    RunResult r = run(0, "host", 3);
    auto dev = [&](int w, int device, int64_t s, int64_t e) {
        Record rec = record(0, w, 0, s, e, kGB);
        rec.device = device;
        rec.device_start_ns = s;
        rec.device_end_ns = e;
        r.records.push_back(rec);
    };
    dev(0, 0, 0, 10);  // device 0: two overlapping fully -> 2.0
    dev(1, 0, 0, 10);
    dev(2, 1, 0, 10);  // device 1: one -> 1.0
    res.runs.push_back(r);
    const RunAnalysis a = analyze(res).runs[0];
    REQUIRE(a.devices.size() == 2);
    CHECK(near(a.devices[0].concurrency, 2));
    CHECK(near(a.devices[1].concurrency, 1));
    CHECK(near(*a.device_concurrency, 1.5));
    CHECK(*a.device_peak == 2);
    // Across devices: three transfers in flight at once.
    CHECK(a.device_peak_all == 3);
    CHECK(near(*a.device_concurrency_all, 3));
    CHECK_FALSE(any_line_contains(a.findings, "never overlapped"));
}

TEST_CASE("scaling against the 1-thread run with the same key", "[report][analysis]") {
    Results res;
    RunResult one = run(0, "host", 1, "host");
    back_to_back(one, 0, 0, jittered(kS, 8));  // 8 GB in 8 s
    RunResult four = run(1, "host", 4, "host");
    for (int w = 0; w < 4; ++w) back_to_back(four, w, 0, jittered(4 * kS, 2, w % 2));
    RunResult fast = run(2, "host", 2, "host");
    for (int w = 0; w < 2; ++w) back_to_back(fast, w, 0, jittered(kS, 4, w % 2));
    RunResult other = run(3, "openmp", 4, "openmp");  // no 1-thread openmp run
    back_to_back(other, 0, 0, {kS});
    res.runs = {one, four, fast, other};

    const Analysis an = analyze(res);
    REQUIRE(an.runs[1].scaling.has_value());
    CHECK(near(*an.runs[1].scaling, 1.0));  // same 8 GB in the same 8 s
    CHECK(an.runs[1].scaling_reference == 0);
    CHECK(an.runs[1].scaling_within_noise == true);
    // One trial: the ratio is in the table; a sentence needs trials to hold across.
    CHECK_FALSE(any_line_contains(an.runs[1].findings, "scaling"));
    REQUIRE(an.runs[2].scaling.has_value());
    CHECK(near(*an.runs[2].scaling, 2.0));  // 8 GB in 4 s
    CHECK(an.runs[2].scaling_within_noise == false);
    CHECK_FALSE(an.runs[3].scaling.has_value());
    CHECK_FALSE(an.runs[0].scaling.has_value());
}

TEST_CASE("verdict: within noise vs beyond noise", "[report][analysis]") {
    // CV of durations alternating 0.9/1.1: 0.1·sqrt(8/7); n = 8 -> se = cv/sqrt(8) each run;
    // bound = 2·sqrt(se^2 + se^2) = 0.2·sqrt(2/7) = 0.1069 on |ln ratio|, i.e. +-11 %.
    RunAnalysis base, same, edge, faster, slower;
    auto fill = [](RunAnalysis& a, double scale) {
        std::vector<double> ns, bw;
        for (int i = 0; i < 8; ++i) {
            const double d = (i % 2 ? 0.9 : 1.1) * scale;
            ns.push_back(d * 1e9);
            bw.push_back(1e9 / d);
        }
        a.per_copy_ns = distribution(ns);
        a.per_copy_Bps = distribution(bw);
        a.copies = 8;
        a.aggregate_Bps = 1e9 / scale;
    };
    fill(base, 1);
    fill(same, 1 / 1.05);   // 5 % faster: |ln 1.05| = 0.049 < 0.1069
    fill(edge, 1 / 1.12);   // 12 % faster: |ln 1.12| = 0.113 > 0.1069
    fill(faster, 1 / 1.5);  // 50 % faster
    fill(slower, 2);
    faster.run = 2;

    const Comparison c1 = compare_runs(same, base);
    CHECK(near(c1.aggregate_noise, 0.2 * std::sqrt(2.0 / 7)));
    CHECK(near(c1.aggregate_ratio, 1.05));
    CHECK(c1.within_noise);
    CHECK(c1.verdict == "1.05x (inside this run's noise +-11%)");

    const Comparison edge_c = compare_runs(edge, base);
    CHECK_FALSE(edge_c.within_noise);
    CHECK(edge_c.verdict == "1.12x (outside this run's noise +-11%)");

    const Comparison c2 = compare_runs(faster, base);
    CHECK_FALSE(c2.within_noise);
    CHECK_FALSE(c2.p50_within_noise);
    CHECK(c2.verdict == "1.50x (outside this run's noise +-11%)");

    const Comparison c3 = compare_runs(slower, base);
    CHECK_FALSE(c3.within_noise);
    CHECK(c3.verdict == "0.50x (outside this run's noise +-11%)");

    RunAnalysis single;
    fill(single, 1);
    single.per_copy_ns = distribution({1e9});
    single.per_copy_Bps = distribution({1e9});
    const Comparison c4 = compare_runs(single, base);
    CHECK_FALSE(c4.judged);
    CHECK_FALSE(c4.within_noise);
    CHECK(c4.verdict == "1.00x (too few copies to judge noise)");
}

TEST_CASE("same aggregate, slower copies in one trial: an observation of that trial",
          "[report][analysis]") {
    Results res;
    RunResult base = run(0, "host", 1);
    back_to_back(base, 0, 0, jittered(kS, 8));  // 1 GB/s, copies of ~1 s
    RunResult py = run(1, "python", 4);
    // Four workers, each copy ~4 s, all overlapping: same 8 GB in 8 s, copies 4x slower.
    for (int w = 0; w < 4; ++w) back_to_back(py, w, 0, jittered(4 * kS, 2, w % 2));
    res.runs = {base, py};

    const Analysis an = analyze(res);
    const RunAnalysis& a = an.runs[1];
    REQUIRE(a.vs_baseline.has_value());
    CHECK(near(a.vs_baseline->aggregate_ratio, 1.0));
    CHECK(a.vs_baseline->within_noise);
    CHECK_FALSE(a.vs_baseline->p50_within_noise);
    CHECK(std::abs(a.vs_baseline->p50_ratio - 0.25) < 0.01);
    CHECK(any_line_contains(a.findings,
                            "in this trial the aggregate was within the runs' noise (+-"));
    CHECK(any_line_contains(a.findings,
                            "of the baseline's ('host threads.count=1') while per-copy p50 was "
                            "4.00x lower"));
    // One trial cannot say the aggregates do not differ: the summary does not claim it.
    CHECK_FALSE(any_line_contains(an.summary, "understates"));
    CHECK(any_line_contains(an.summary,
                            "aggregate inside the noise of its own run and the baseline's: run 1"));
}

TEST_CASE("the baseline is the first ok run, and failed runs are summarized",
          "[report][analysis]") {
    Results res;
    RunResult failed = run(0, "python", 1);
    failed.status = RunStatus::failed;
    failed.errors = {"payload threads.py:12: NameError"};
    RunResult ok = run(1, "host", 1);
    back_to_back(ok, 0, 0, {kS, kS});
    res.runs = {failed, ok};
    const Analysis an = analyze(res);
    CHECK(an.baseline_run == 1);
    CHECK(an.runs[1].is_baseline);
    CHECK_FALSE(an.runs[0].vs_baseline.has_value());  // no copies to compare
    CHECK(any_line_contains(an.summary, "baseline: run 1 (host threads.count=1)"));
    CHECK(any_line_contains(an.summary,
                            "run 0 (python threads.count=1) failed: payload threads.py:12"));
}

TEST_CASE("thread differences against the baseline's workers", "[report][analysis]") {
    Results res;
    RunResult base = run(0, "host", 2);
    RunResult py = run(1, "python", 2);
    for (int w = 0; w < 2; ++w) {
        back_to_back(base, w, 0, {kS});
        back_to_back(py, w, 0, {kS});
        ThreadInfo t;
        t.launcher = "host";
        t.worker = w;
        t.tid = 100 + w;
        t.stack_size = 8 << 20;
        t.policy = "other";
        base.threads_info.push_back(t);
        t.launcher = "python";
        t.tid = 200 + w;  // identity: never a difference
        t.stack_size = 256 << 10;
        t.python_thread = true;
        if (w == 1) t.policy = "batch";
        py.threads_info.push_back(t);
    }
    ThreadInfo main_thread;  // worker -1: not compared
    main_thread.stack_size = 1;
    py.threads_info.push_back(main_thread);
    res.runs = {base, py};

    const auto diffs = analyze(res).runs[1].thread_differences;
    int stack = 0, policy = 0;
    for (const auto& d : diffs) {
        if (d.rfind("stack_size:", 0) == 0) ++stack;  // shared by both workers: once, no prefix
        if (d.rfind("worker 1: policy: other vs batch", 0) == 0) ++policy;
    }
    CHECK(stack == 1);
    CHECK(policy == 1);
    CHECK(any_line_contains(diffs, "python_thread: no vs yes"));
    CHECK_FALSE(any_line_contains(diffs, "tid"));
    CHECK(analyze(res).runs[0].thread_differences.empty());
}

TEST_CASE("calls that take turns are called serialized on the host side", "[report][analysis]") {
    Results res;
    RunResult gil = run(0, "python", 2);
    // Worker 0 and 1 alternate: never two calls in flight.
    gil.records = {record(0, 0, 0, 0, kS, kGB), record(0, 1, 0, kS, 2 * kS, kGB),
                   record(0, 0, 1, 2 * kS, 3 * kS, kGB), record(0, 1, 1, 3 * kS, 4 * kS, kGB)};
    RunResult overlap = run(1, "host", 2);
    back_to_back(overlap, 0, 0, {kS, kS});
    back_to_back(overlap, 1, kS / 2, {kS, kS});
    res.runs = {gil, overlap};
    const Analysis an = analyze(res);
    CHECK(an.runs[0].host_peak == 1);
    CHECK(an.runs[0].host_peak_in_flight == 1);
    CHECK(near(an.runs[0].host_concurrency, 1));
    CHECK(any_line_contains(an.runs[0].findings,
                            "calls never overlapped: one copy call in flight at a time"));
    CHECK(an.runs[1].host_peak == 2);
    CHECK_FALSE(any_line_contains(an.runs[1].findings, "never overlapped"));
}

TEST_CASE("a stall widens the noise bound and is named", "[report][analysis]") {
    Results res;
    RunResult base = run(0, "host", 1);
    back_to_back(base, 0, 0, jittered(kS, 8));
    RunResult stalled = run(1, "host", 1);
    std::vector<int64_t> d = jittered(kS, 8);
    d[3] = 20 * kS;  // one copy 20x the others
    back_to_back(stalled, 0, 0, d);
    res.runs = {base, stalled};
    const Analysis an = analyze(res);
    const RunAnalysis& a = an.runs[1];
    // 8 GB in 26.9 s against 8 GB in 8 s: 0.30x, but the stall makes the mean copy time so
    // uncertain (CV 2.3 over 8 copies) that the runs cannot be told apart.
    REQUIRE(a.vs_baseline.has_value());
    CHECK(std::abs(a.vs_baseline->aggregate_ratio - 8.0 / 26.9) < 0.01);
    CHECK(a.vs_baseline->within_noise);
    // Host backend: no device times to tell waiting from moving bytes.
    CHECK(any_line_contains(a.findings,
                            "the slowest call took 20 s (20x the median 1 s); without device "
                            "times waiting and moving bytes cannot be told apart"));
    CHECK_FALSE(any_line_contains(an.runs[0].findings, "slowest"));
}

TEST_CASE("warm-up copies inside the window count toward the aggregate pro rata",
          "[report][analysis]") {
    // Two workers take turns, each running its warm-up then its copies back to back (what an
    // unfair driver lock does). Worker 1's warm-up [3 s, 4 s) lies inside the measured window
    // [1 s, 6 s); worker 0's warm-up [0, 1 s) lies before it.
    Results results;
    RunResult r = run(0, "host", 2);
    r.records.push_back(record(0, 0, -1, 0, 1 * kS, kGB, true));
    r.records.push_back(record(0, 0, 0, 1 * kS, 2 * kS, kGB));
    r.records.push_back(record(0, 0, 1, 2 * kS, 3 * kS, kGB));
    r.records.push_back(record(0, 1, -1, 3 * kS, 4 * kS, kGB, true));
    r.records.push_back(record(0, 1, 0, 4 * kS, 5 * kS, kGB));
    // A measured copy with a device interval: wholly inside, counts whole.
    Record half = record(0, 1, 1, 5 * kS, 7 * kS, 2 * kGB);
    half.device_start_ns = 5 * kS;
    half.device_end_ns = 7 * kS;
    r.records.push_back(half);
    results.runs.push_back(r);

    const Analysis an = analyze(results);
    const RunAnalysis& a = an.runs[0];
    CHECK(a.window_s == 6.0);  // measured copies span [1 s, 7 s)
    CHECK(a.warmup_copies_in_window == 1);
    // 3 measured GB + 2 GB of the last copy + worker 1's 1 GB warm-up; not worker 0's.
    CHECK(std::abs(a.window_bytes - 6.0 * double(kGB)) < 1.0);
    CHECK(std::abs(a.aggregate_Bps - 1.0 * double(kGB)) < 1.0);
    // Said once for the report, in the summary, not under every run.
    CHECK(any_line_contains(an.summary,
                            "1 warm-up copy overlapped the measurement window (run 0): the "
                            "aggregate counts the bytes they moved inside it"));
    // Host backend: no device peak to say the workers took turns.
    CHECK_FALSE(any_line_contains(an.summary, "took turns"));
    CHECK_FALSE(any_line_contains(a.findings, "warm-up cop"));
}
