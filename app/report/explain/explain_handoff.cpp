// Per-run rules about serialized devices: who kept a device and who handed it off, how soon
// they came back, the GIL's part, and serialization within CUDA contexts (catalogue:
// docs/reading-reports.md, "Explanations").
#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "report/explain/explain_rules_internal.hpp"
#include "util/format.hpp"

namespace xfer::explain {

namespace {

// The workers on `h`'s device that kept it (runs of 2.0+ copies) and handed it off (1.5 or
// fewer), each with 5+ copies there: a worker between the two bands is named neither.
void keepers_and_handers(const RunAnalysis& a, const HandoffStats& h, std::vector<int>& kept,
                         std::vector<int>& handed) {
    for (const WorkerStats& w : a.workers) {
        if (w.device != h.device || w.sequence_copies < kMinSequenceCopies) continue;
        if (w.run_length >= kKeepRunLength) kept.push_back(w.worker);
        if (w.run_length <= kHandRunLength) handed.push_back(w.worker);
    }
}

}  // namespace

void hand_off(const RuleInput& in, std::vector<Finding>& out) {
    const RunAnalysis& a = in.a();
    // Calls that return before their transfers (a watched cudaMemcpyAsync) wait for nothing: the
    // queue orders the device, not how soon a worker calls again.
    if (!a.calls_hold_transfers) return;
    for (const HandoffStats& h : a.handoffs) {
        if (!serialized(a, h)) continue;
        std::vector<int> kept, handed;
        keepers_and_handers(a, h, kept, handed);
        // Counts, not the workers' numbers: which workers kept the device changes from trial
        // to trial while how many did is what a run of the plan shows (--full names each
        // worker's run length).
        Finding f;
        f.say(
             "device {device} changed hands at rate {rate} (mean run length {length}): {kept} "
             "of {workers} workers kept it, {handed} handed it off after about one copy; ")
            .claim("device", std::to_string(h.device))
            .figure("rate", h.handoff_rate, fmt::format("{:.2f}", h.handoff_rate))
            .figure("length", h.mean_run_length, fmt::format("{:.1f}", h.mean_run_length))
            .figure("kept", double(kept.size()), std::to_string(kept.size()))
            .figure("workers", h.workers, std::to_string(h.workers))
            .figure("handed", double(handed.size()), std::to_string(handed.size()));
        // This device's own gaps: on a run of several devices the run-wide figure mixes them.
        if (h.gap_ns)
            f.say("{launcher} workers return to the driver after p50 {gap} (p90 {gap90})")
                .claim("launcher", in.r().settings.launcher)
                .figure("gap", h.gap_ns->p50, fmtx::duration(h.gap_ns->p50))
                .figure("gap90", h.gap_ns->p90, fmtx::duration(h.gap_ns->p90));
        else
            f.say("no worker made two copies (no gap measured)");
        out.push_back(std::move(f));
    }
}

void returned_sooner_kept(const RuleInput& in, std::vector<Finding>& out) {
    const RunAnalysis& a = in.a();
    if (!a.calls_hold_transfers) return;  // as hand_off: the queue orders the device
    for (const HandoffStats& h : a.handoffs) {
        if (!serialized(a, h)) continue;
        std::vector<int> kept, handed;
        keepers_and_handers(a, h, kept, handed);
        if (kept.empty() || handed.empty()) continue;
        // Every named worker with enough gaps, and the two sides clearly apart.
        double slowest_keeper = 0, fastest_hander = -1;
        bool enough = true;
        for (int w : kept) {
            const auto& g = a.workers[size_t(w)].gap_ns;
            enough &= g && g->n >= kMinGaps;
            if (g) slowest_keeper = std::max(slowest_keeper, g->p50);
        }
        for (int w : handed) {
            const auto& g = a.workers[size_t(w)].gap_ns;
            enough &= g && g->n >= kMinGaps;
            if (g) fastest_hander = fastest_hander < 0 ? g->p50 : std::min(fastest_hander, g->p50);
        }
        if (!enough || slowest_keeper * kGapApart > fastest_hander) continue;
        out.push_back(Finding{}
                          .say(fmt::format("on device {{device}} the workers that returned sooner "
                                           "kept it: every worker that kept it returned at least "
                                           "{:.1f}x sooner (gap p50) than every worker that "
                                           "handed it off",
                                           kGapApart))
                          .claim("device", std::to_string(h.device)));
    }
}

void gil_released(const RuleInput& in, std::vector<Finding>& out) {
    const RunAnalysis& a = in.a();
    const bool any = std::any_of(a.handoffs.begin(), a.handoffs.end(),
                                 [&](const HandoffStats& h) { return serialized(a, h); });
    // A batch (w.copy(count=n)) releases the GIL once for all its calls: still not held during
    // any of them, which is all this says.
    if (any && gil_of(in.r()) == GilPolicy::release)
        out.push_back(Finding{}.say(
            "gil = release: the GIL was not held during the copy calls, so it did not serialize "
            "them"));
}

void per_context_in_run(const RuleInput& in, std::vector<Finding>& out) {
    const RunAnalysis& a = in.a();
    for (const HandoffStats& h : a.handoffs) {
        const DeviceStats* d = device_stats(a, h.device);
        // Within a context of one worker nothing could overlap anyway: it shows nothing.
        if (!d || h.contexts < 2 || h.context_peak != 1 || d->peak_in_flight < 2 ||
            h.context_workers < 2)
            continue;
        out.push_back(Finding{}
                          .say("device {device}: transfers of {contexts} CUDA contexts overlapped "
                               "(peak {peak}) but never two within one context, though a context "
                               "held up to {workers} workers")
                          .claim("device", std::to_string(h.device))
                          .figure("contexts", h.contexts, std::to_string(h.contexts))
                          .figure("peak", d->peak_in_flight, std::to_string(d->peak_in_flight))
                          .figure("workers", h.context_workers, std::to_string(h.context_workers)));
    }
}

}  // namespace xfer::explain
