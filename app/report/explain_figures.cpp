// Per-run rules about the run's figures: against its baseline, its slowest call, how evenly
// its workers were served, scaling across trials, a shared machine (catalogue:
// docs/reading-reports.md, "Explanations").
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "report/explain_rules_internal.hpp"
#include "results/vocabulary.hpp"
#include "report/trial_stats.hpp"
#include "util/format.hpp"

namespace xfer::explain {

void same_aggregate_slower_copies(const RuleInput& in, std::vector<std::string>& out) {
    const RunAnalysis& a = in.a();
    if (!a.vs_baseline || !a.vs_baseline->judged) return;
    const Comparison& c = *a.vs_baseline;
    if (!c.within_noise || c.p50_within_noise || c.p50_ratio <= 0 || c.p50_ratio >= 1) return;
    std::string line = fmt::format(
        "aggregate within noise of baseline (run {}) but per-copy p50 {} lower: each copy took "
        "longer without the bytes per second falling",
        c.baseline_run, fmtx::ratio(1 / c.p50_ratio));
    // A mechanism only where this run's own numbers show it.
    const auto rate = serialized_handoff_rate(a);
    if (devices_took_turns(a) && rate && *rate >= kHandoffHigh)
        line += fmt::format("; the copies took turns on the device (hand-off rate {:.2f})", *rate);
    else if (a.device_concurrency && *a.device_concurrency >= kOverlapHostMin)
        line += fmt::format("; the copies shared the device (device-side concurrency {:.1f})",
                            *a.device_concurrency);
    out.push_back(line);
}

void slowest_call(const RuleInput& in, std::vector<std::string>& out) {
    const RunAnalysis& a = in.a();
    const Distribution& d = a.per_copy_ns;
    if (d.n < 2 || d.p50 <= 0 || a.slowest_call_ns < kSlowFactor * d.p50) return;
    const double times = a.slowest_call_ns / d.p50;
    if (!a.slowest_transfer_ns || !a.transfer_ns || a.transfer_ns->p50 <= 0) {
        out.push_back(fmt::format(
            "the slowest call took {} ({:.0f}x the median {}); without device times waiting and "
            "moving bytes cannot be told apart",
            fmtx::duration(a.slowest_call_ns), times, fmtx::duration(d.p50)));
        return;
    }
    const double transfer_p50 = a.transfer_ns->p50;
    if (*a.slowest_transfer_ns <= kQueuedTransfer * transfer_p50) {
        out.push_back(fmt::format(
            "queued: the slowest call took {} ({:.0f}x the median {}): {} waiting before the "
            "device started, {} moving bytes (a transfer's median is {})",
            fmtx::duration(a.slowest_call_ns), times, fmtx::duration(d.p50),
            fmtx::duration(*a.slowest_wait_ns), fmtx::duration(*a.slowest_transfer_ns),
            fmtx::duration(transfer_p50)));
        return;
    }
    out.push_back(fmt::format(
        "erratic: the slowest transfer took {} ({:.0f}x the median transfer {}) in a call of {}",
        fmtx::duration(*a.slowest_transfer_ns), *a.slowest_transfer_ns / transfer_p50,
        fmtx::duration(transfer_p50), fmtx::duration(a.slowest_call_ns)));
}

void unequal_service(const RuleInput& in, std::vector<std::string>& out) {
    const RunAnalysis& a = in.a();
    if (a.workers.size() < 2 || a.fairness >= kUnequalJain) return;
    const WorkerStats* low = &a.workers.front();
    double sum = 0;
    for (const WorkerStats& w : a.workers) {
        sum += w.service_Bps;
        if (w.service_Bps < low->service_Bps) low = &w;
    }
    const double mean = sum / double(a.workers.size());
    const std::string measure = fmt::format(
        "Jain {:.2f} over the workers' bytes per second of their own transfer time", a.fairness);
    if (low->copies == 0) {
        out.push_back(fmt::format("unequal service: worker {} made no measured copy ({})",
                                  low->worker, measure));
        return;
    }
    out.push_back(
        fmt::format("unequal service: {}; worker {} moved its bytes at {} of the "
                    "workers' mean rate",
                    measure, low->worker, fmtx::percent(low->service_Bps / mean)));
}

namespace {

// The aggregates of the trials of `run`'s label, and of the one-thread run of each same trial.
struct ScalingTrials {
    std::vector<double> many, one, ratios;
    std::string reference_label;
};

ScalingTrials scaling_trials(const RuleInput& in) {
    ScalingTrials t;
    for (size_t i : trials_of(in.results, in.run)) {
        const RunAnalysis& a = in.analysis.runs[i];
        if (!a.scaling || !a.scaling_reference) continue;
        const RunResult& ref = in.results.runs[size_t(*a.scaling_reference)];
        if (ref.trial != in.results.runs[i].trial) continue;  // only same-trial pairs
        t.reference_label = ref.label;
        t.many.push_back(a.aggregate_Bps);
        t.one.push_back(a.aggregate_Bps / *a.scaling);
        t.ratios.push_back(*a.scaling);
    }
    return t;
}

std::string band(const std::vector<double>& v) {
    const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
    return fmt::format("{}-{}", fmtx::gbps(*lo), fmtx::gbps(*hi));
}

}  // namespace

void scaling(const RuleInput& in, std::vector<std::string>& out) {
    const RunResult& run = in.r();
    if (run.threads <= 1 || !in.a().scaling) return;
    const ScalingTrials t = scaling_trials(in);
    if (t.ratios.size() < 2) return;  // one trial: the table shows the ratio, nothing more
    const double median = stats::median(t.ratios);
    const std::string bands = fmt::format("{} vs {} GB/s", band(t.many), band(t.one));
    const double many_lo = *std::min_element(t.many.begin(), t.many.end());
    const double many_hi = *std::max_element(t.many.begin(), t.many.end());
    const double one_lo = *std::min_element(t.one.begin(), t.one.end());
    const double one_hi = *std::max_element(t.one.begin(), t.one.end());
    const std::string what = fmt::format("{} for {} threads against one thread ('{}')",
                                         fmtx::ratio(median), run.threads, t.reference_label);
    const std::string evidence =
        fmt::format("median of {} trials' ratios; every trial apart: {}", t.ratios.size(), bands);
    if (many_lo > one_hi && median >= 1 + kPracticalRatio)
        out.push_back(fmt::format("more threads, more bytes per second: {} ({})", what, evidence));
    else if (many_hi < one_lo && median <= 1 - kPracticalRatio)
        out.push_back(fmt::format("more threads, fewer bytes per second: {} ({})", what, evidence));
    else if (std::abs(median - 1) < kPracticalRatio)
        out.push_back(fmt::format("scaling {}: no practical difference (under 1 %)", what));
    else
        out.push_back(fmt::format(
            "scaling {}: the trials overlap ({}): no consistent difference in {} trials", what,
            bands, t.ratios.size()));
}

void shared_machine(const RuleInput& in, std::vector<std::string>& out) {
    const RunResult& run = in.r();
    if (!run.host_activity) return;
    const HostActivity& h = *run.host_activity;
    const double window_s = double(h.window_ns) / 1e9;
    if (window_s <= 0 || h.cpus <= 0) return;
    // /proc/stat counts 10 ms ticks, read at both ends of the window: the busy CPUs it gives
    // are uncertain by up to 2 ticks per CPU over the window.
    const double resolution = 2 * h.cpus * kTickSeconds / window_s;
    const bool others = h.others_cpus - resolution >= kNotableOthers && h.busy_cpus >= h.own_cpus;
    const bool steal =
        h.steal_fraction >= kNotableSteal && window_s >= kStealTicksPerCpu * kTickSeconds;
    if (!others && !steal) return;
    const char* when = h.span == "copies"
                           ? "the copies ran"
                           : "the run's workers ran (buffers prepared and copies made)";
    std::string line = fmt::format(
        "shared machine: other processes kept {:.1f} of {} CPUs busy while {} (xferlab {:.1f}; "
        "+-{:.2f} CPUs at /proc/stat's 10 ms ticks over {}), the hypervisor took {:.1f}% of CPU "
        "time (steal)",
        h.others_cpus, h.cpus, when, h.own_cpus, resolution, fmtx::duration(double(h.window_ns)),
        h.steal_fraction * 100);
    if (const LauncherDescriptor* d = find_launcher(run.launcher); d && d->traits.spans_mpi_ranks)
        line += "; the other MPI ranks on this host count as other processes";
    out.push_back(line + ": the copies may have waited for CPUs or memory bandwidth they shared");
}

}  // namespace xfer::explain
