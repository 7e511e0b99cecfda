// Per-run rules about the run's figures: against its baseline, its slowest call, how evenly
// its workers were served, scaling across trials, a shared machine (catalogue:
// docs/reading-reports.md, "Explanations").
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "report/explain/explain_rules_internal.hpp"
#include "report/analysis/trial_analysis.hpp"
#include "report/analysis/trial_stats.hpp"
#include "settings/vocabulary.hpp"
#include "util/format.hpp"

namespace xfer::explain {

namespace {

using Verdict = TrialComparison::Finding;

// The group of the run at `run` (its label's trials), nullptr when it has none.
const TrialGroup* group_of(const Analysis& analysis, size_t run) {
    for (const TrialGroup& g : analysis.groups)
        if (std::find(g.runs.begin(), g.runs.end(), int(run)) != g.runs.end()) return &g;
    return nullptr;
}

// "; the copies took turns on the device (hand-off rate R)" or "; the copies shared the device
// (device-side concurrency C)": a mechanism only where this run's own numbers show it.
void say_mechanism(const RunAnalysis& a, Finding& f) {
    const auto rate = serialized_handoff_rate(a);
    if (devices_took_turns(a) && rate && *rate >= kHandoffHigh)
        f.say("; the copies took turns on the device (hand-off rate {rate})")
            .figure("rate", *rate, fmt::format("{:.2f}", *rate));
    else if (a.device_concurrency && *a.device_concurrency >= kOverlapHostMin)
        f.say("; the copies shared the device (device-side concurrency {concurrency})")
            .figure("concurrency", *a.device_concurrency,
                    fmt::format("{:.1f}", *a.device_concurrency));
}

// After "each copy took longer": whether the aggregate may have fallen. "No difference found"
// is not "no fall": only a CI that rules out a fall larger than kFallBound says it did not.
void say_fall(const TrialComparison& c, Finding& f) {
    if (!c.ci_low) {
        f.say(", and with no 95% CI at these trial counts a fall of the aggregate is not ruled out");
        return;
    }
    f.figure("ci_low", *c.ci_low, fmtx::ratio(*c.ci_low))
        .figure("ci_high", *c.ci_high, fmtx::ratio(*c.ci_high));
    if (*c.ci_low >= 1 - kFallBound) {
        f.say(" without the bytes per second falling by more than {bound} (95% CI of the "
              "aggregate ratio [{ci_low}, {ci_high}])")
            .figure("bound", kFallBound, fmt::format("{:.0f}%", kFallBound * 100));
        return;
    }
    const double fall = 1 - *c.ci_low;
    f.say("; the aggregate's 95% CI [{ci_low}, {ci_high}] allows a fall of up to {fall}, so "
          "whether the bytes per second fell is open")
        .figure("fall", fall, fmtx::percent(fall));
}

}  // namespace

void same_aggregate_slower_copies(const RuleInput& in, std::vector<Finding>& out) {
    const RunAnalysis& a = in.a();
    if (!a.vs_baseline || !a.vs_baseline->judged) return;
    const Comparison& c = *a.vs_baseline;
    if (!c.within_noise || c.p50_within_noise || c.p50_ratio <= 0 || c.p50_ratio >= 1) return;
    // Per-copy p50 is a call's time: where a call returns before its transfer (a watched
    // program's cudaMemcpyAsync), on either side, it says nothing of how long a copy took.
    if (!a.calls_hold_transfers) return;
    for (size_t j = 0; j < in.results.runs.size(); ++j)
        if (in.results.runs[j].position.index == c.baseline_run &&
            !in.analysis.runs[j].calls_hold_transfers)
            return;
    const TrialGroup* g = group_of(in.analysis, in.run);
    const auto verdict = g && g->vs_baseline ? g->vs_baseline->finding : Verdict::not_tested;
    // The trials said the aggregates differ: "the same aggregate" would contradict them.
    if (verdict == Verdict::faster || verdict == Verdict::slower) return;
    const double lower = 1 / c.p50_ratio;
    Finding f;
    if (verdict == Verdict::no_difference || verdict == Verdict::negligible) {
        f.say("aggregate not different from the baseline's across trials ({verdict}, {trials} "
              "trials) but per-copy p50 {lower} lower than the baseline's ({baseline}): each copy "
              "took longer")
            .claim("verdict", finding_name(verdict))
            .figure("trials", double(g->aggregate_Bps.size()),
                    std::to_string(g->aggregate_Bps.size()));
        say_fall(*g->vs_baseline, f);
    } else {
        // One trial's observation: the within-run noise says nothing about drift between runs.
        f.say("in this trial the aggregate was within the runs' noise (+-{noise}) of the "
              "baseline's ({baseline}) while per-copy p50 was {lower} lower; whether the "
              "aggregates differ is {verdict} with these trials")
            .claim("verdict", finding_name(verdict))
            .figure("noise", std::expm1(c.aggregate_noise), fmtx::percent(std::expm1(c.aggregate_noise)));
    }
    for (const RunResult& b : in.results.runs)
        if (b.position.index == c.baseline_run) name_run(f, "baseline", b);
    f.figure("lower", lower, fmtx::ratio(lower));
    say_mechanism(a, f);
    out.push_back(std::move(f));
}

void slowest_call(const RuleInput& in, std::vector<Finding>& out) {
    const RunAnalysis& a = in.a();
    const Distribution& d = a.per_copy_ns;
    if (d.n < 2 || d.p50 <= 0 || a.slowest_call_ns < kSlowFactor * d.p50) return;
    const double times = a.slowest_call_ns / d.p50;
    Finding f;
    f.figure("call", a.slowest_call_ns, fmtx::duration(a.slowest_call_ns))
        .figure("times", times, fmt::format("{:.0f}x", times))
        .figure("median", d.p50, fmtx::duration(d.p50));
    if (!a.slowest_transfer_ns || !a.transfer_ns || a.transfer_ns->p50 <= 0) {
        out.push_back(f.say("the slowest call took {call} ({times} the median {median}); without "
                            "device times waiting and moving bytes cannot be told apart"));
        return;
    }
    const double transfer_p50 = a.transfer_ns->p50;
    f.figure("transfer", *a.slowest_transfer_ns, fmtx::duration(*a.slowest_transfer_ns))
        .figure("transfer_median", transfer_p50, fmtx::duration(transfer_p50));
    if (*a.slowest_transfer_ns <= kQueuedTransfer * transfer_p50) {
        out.push_back(f.say("queued: the slowest call took {call} ({times} the median {median}): "
                            "{wait} waiting before the device started, {transfer} moving bytes "
                            "(a transfer's median is {transfer_median})")
                          .figure("wait", *a.slowest_wait_ns, fmtx::duration(*a.slowest_wait_ns)));
        return;
    }
    const double slower = *a.slowest_transfer_ns / transfer_p50;
    out.push_back(f.say("erratic: the slowest transfer took {transfer} ({transfer_times} the "
                        "median transfer {transfer_median}) in a call of {call}")
                      .figure("transfer_times", slower, fmt::format("{:.0f}x", slower)));
}

namespace {

bool without_copies(const WorkerStats& w) { return w.copies == 0; }

// Whether run `a` served its workers unequally whatever its slowest-served copy did: a worker with no
// measured copy at all, or Jain below the margin with and without that call.
bool unequal_without_slowest(const RunAnalysis& a) {
    if (a.workers.size() < 2 || a.copies == 0 || a.service_jain >= kUnequalJain) return false;
    if (std::any_of(a.workers.begin(), a.workers.end(), without_copies)) return true;
    return a.service_jain_without_slowest && *a.service_jain_without_slowest < kUnequalJain;
}

}  // namespace

void unequal_service(const RuleInput& in, std::vector<Finding>& out) {
    const RunAnalysis& a = in.a();
    if (!unequal_without_slowest(a)) return;
    // Every trial of the run; the worker served least is named only where it is the same one
    // in every trial.
    const auto trials = trials_of(in.results, in.run);
    std::vector<int> least;
    for (size_t t : trials) {
        const RunAnalysis& at = in.analysis.runs[t];
        if (!unequal_without_slowest(at)) return;
        if (std::find(least.begin(), least.end(), at.least_served_worker) == least.end())
            least.push_back(at.least_served_worker);
    }
    std::sort(least.begin(), least.end());
    const WorkerStats& low = a.workers[size_t(a.least_served_worker)];
    Finding f;
    f.claim("trials", trials.size() == 1 ? "its one trial"
                                         : fmt::format("every trial ({})", trials.size()))
        .figure("jain", a.service_jain, fmt::format("{:.2f}", a.service_jain));
    const std::string jain =
        "Jain {jain} over the workers' bytes per second of their own transfer time";
    if (least.size() == 1 && low.copies == 0) {
        out.push_back(f.say("unequal service in {trials}: worker {worker} made no measured copy (" +
                            jain + ")")
                          .claim("worker", std::to_string(low.worker)));
        return;
    }
    if (a.service_jain_without_slowest)
        f.say("unequal service in {trials}, also without the copy served slowest: " + jain +
              " ({without} without it); ")
            .figure("without", *a.service_jain_without_slowest,
                    fmt::format("{:.2f}", *a.service_jain_without_slowest));
    else  // a worker without copies; the copy served slowest was its worker's only one
        f.say("unequal service in {trials}: " + jain + "; ");
    if (least.size() > 1) {
        f.say("the worker served least differed between trials ({least})")
            .claim("least", worker_list(least));
    } else {
        double sum = 0;
        for (const WorkerStats& w : a.workers) sum += w.service_Bps;
        const double share = low.service_Bps / (sum / double(a.workers.size()));
        f.say("worker {worker} moved its bytes at {share} of the workers' mean rate")
            .claim("worker", std::to_string(low.worker))
            .figure("share", share, fmtx::percent(share));
    }
    out.push_back(std::move(f));
}

namespace {

// The ratio of each trial of `run`'s label to the one-thread run of that same trial.
struct ScalingTrials {
    std::vector<double> ratios;
    std::string reference_label;
};

ScalingTrials scaling_trials(const RuleInput& in) {
    ScalingTrials t;
    for (size_t i : trials_of(in.results, in.run)) {
        const RunAnalysis& a = in.analysis.runs[i];
        if (!a.scaling || !a.scaling_reference) continue;
        const RunResult* ref = nullptr;
        for (const RunResult& r : in.results.runs)
            if (r.position.index == *a.scaling_reference) ref = &r;
        if (!ref || ref->position.trial != in.results.runs[i].position.trial)
            continue;  // only same-trial pairs
        t.reference_label = ref->position.label;
        t.ratios.push_back(*a.scaling);
    }
    return t;
}

}  // namespace

void scaling(const RuleInput& in, std::vector<Finding>& out) {
    const RunResult& run = in.r();
    if (run.settings.threads.count <= 1 || !in.a().scaling) return;
    const ScalingTrials t = scaling_trials(in);
    if (t.ratios.size() < 2) return;  // one trial: the table shows the ratio, nothing more
    const double median = stats::median(t.ratios);
    const auto [lo, hi] = std::minmax_element(t.ratios.begin(), t.ratios.end());
    Finding f;
    f.claim("threads", std::to_string(run.settings.threads.count))
        .claim("reference", t.reference_label)
        .figure("ratio", median, fmtx::ratio(median))
        .figure("trials", double(t.ratios.size()), std::to_string(t.ratios.size()))
        .figure("lo", *lo, fmtx::ratio(*lo))
        .figure("hi", *hi, fmtx::ratio(*hi));
    const std::string what = "{ratio} for {threads} threads against one thread ('{reference}')";
    // A direction from paired trials rests on the sign test of their ratios against 1.
    const size_t above = size_t(std::count_if(t.ratios.begin(), t.ratios.end(),
                                              [](double r) { return r > 1; }));
    const size_t below = size_t(std::count_if(t.ratios.begin(), t.ratios.end(),
                                              [](double r) { return r < 1; }));
    const bool one_way = above == t.ratios.size() || below == t.ratios.size();
    const double p = stats::sign_test_p(above, below);
    f.figure("sign_p", p, fmt::format("{:.3g}", p));
    const bool more = above > below;
    const char* side = more ? "above" : "below";
    f.figure("one_side", double(more ? above : below), std::to_string(more ? above : below));
    if (std::abs(median - 1) < kPracticalRatio)
        f.say("scaling " + what + ": the median within 1 % of 1 ({lo} to {hi} in {trials} "
              "paired trials)");
    else if (p < kSignLevel)
        f.say(std::string(more ? "more threads, more" : "more threads, fewer") +
              " bytes per second: " + what + " (median of {trials} paired trials' ratios, " +
              side + " 1 in {one_side} of {trials}: {lo} to {hi}; sign test p = {sign_p})");
    else if (one_way)
        f.say("scaling " + what + ": " + side +
              " 1 in {one_side} of {trials} paired trials ({lo} to {hi}), not significant: sign "
              "test p = {sign_p} (all trials one way reach 5 % from 6 trials)");
    else
        f.say("scaling " + what +
              ": the trials' ratios go both ways ({lo} to {hi}): no consistent difference in "
              "{trials} trials");
    out.push_back(std::move(f));
}

namespace {

// /proc/stat counts 10 ms ticks, read at both ends of the window: the busy CPUs it gives are
// uncertain by up to 2 ticks per CPU over the window.
double tick_resolution(const HostActivity& h) {
    return 2 * h.cpus * kTickSeconds / (double(h.window_ns) / 1e9);
}

}  // namespace

bool machine_shared(const RunResult& run) {
    if (!run.host_activity) return false;
    const HostActivity& h = *run.host_activity;
    const double window_s = double(h.window_ns) / 1e9;
    if (window_s <= 0 || h.cpus <= 0) return false;
    const bool others =
        h.others_cpus - tick_resolution(h) >= kNotableOthers && h.busy_cpus >= h.own_cpus;
    // Steal alone only where it took a share of CPU time that could move a figure.
    const bool steal =
        h.steal_fraction >= kNotableSteal && window_s >= kStealTicksPerCpu * kTickSeconds;
    return others || steal;
}

void shared_machine(const RuleInput& in, std::vector<Finding>& out) {
    const RunResult& run = in.r();
    if (!machine_shared(run)) return;
    const HostActivity& h = *run.host_activity;
    const double resolution = tick_resolution(h);
    Finding f;
    f.say("shared machine: other processes kept {others} of {cpus} CPUs busy while {span} "
          "(xferlab {own}; +-{resolution} CPUs at /proc/stat's 10 ms ticks over {window}), the "
          "hypervisor took {steal}% of CPU time (steal)")
        .figure("others", h.others_cpus, fmt::format("{:.1f}", h.others_cpus))
        .claim("cpus", std::to_string(h.cpus))
        .claim("span", h.span == "copies"
                           ? "the copies ran"
                           : "the run's workers ran (buffers prepared and copies made)")
        .figure("own", h.own_cpus, fmt::format("{:.1f}", h.own_cpus))
        .figure("resolution", resolution, fmt::format("{:.2f}", resolution))
        .figure("window", double(h.window_ns), fmtx::duration(double(h.window_ns)))
        .figure("steal", h.steal_fraction * 100, fmt::format("{:.1f}", h.steal_fraction * 100));
    if (const LauncherDescriptor* d = find_launcher(run.settings.launcher);
        d && d->traits.spans_mpi_ranks)
        f.say("; the other MPI ranks on this host count as other processes");
    out.push_back(
        f.say(": the copies may have waited for CPUs or memory bandwidth they shared"));
}

}  // namespace xfer::explain
