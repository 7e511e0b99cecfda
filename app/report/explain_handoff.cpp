// Per-run rules about serialized devices: who kept a device and who handed it off, how soon
// they came back, the GIL's part, and serialization within CUDA contexts (catalogue:
// docs/reading-reports.md, "Explanations").
#include <fmt/format.h>

#include <algorithm>

#include "report/explain_rules_internal.hpp"
#include "util/format.hpp"

namespace xfer::explain {

namespace {

// "gap p50 3.1 us" of the workers in `ws`, pooled by their medians.
std::string gap_of(const RunAnalysis& a, const std::vector<int>& ws) {
    std::vector<double> p50;
    for (int w : ws)
        if (a.workers[size_t(w)].gap_ns) p50.push_back(a.workers[size_t(w)].gap_ns->p50);
    if (p50.empty()) return "no gap measured";
    return fmt::format("gap p50 {}", fmtx::duration(distribution(std::move(p50)).p50));
}

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

void hand_off(const RuleInput& in, std::vector<std::string>& out) {
    const RunAnalysis& a = in.a();
    for (const HandoffStats& h : a.handoffs) {
        if (!serialized(a, h)) continue;
        std::vector<int> kept, handed;
        keepers_and_handers(a, h, kept, handed);
        std::string line = fmt::format(
            "device {} changed hands after {} of consecutive copies (hand-off rate {:.2f}, mean "
            "run length {:.1f}): ",
            h.device, fmtx::percent(h.handoff_rate), h.handoff_rate, h.mean_run_length);
        if (!kept.empty())
            line += fmt::format("{} kept it ({}), ", worker_list(kept), gap_of(a, kept));
        if (!handed.empty())
            line += fmt::format("{} handed it off after about one copy ({}), ", worker_list(handed),
                                gap_of(a, handed));
        if (a.gap_ns)
            line += fmt::format("{} workers return to the driver after p50 {} (p90 {})",
                                in.r().launcher, fmtx::duration(a.gap_ns->p50),
                                fmtx::duration(a.gap_ns->p90));
        else
            line += "no worker made two copies (no gap measured)";
        out.push_back(line);
    }
}

void returned_sooner_kept(const RuleInput& in, std::vector<std::string>& out) {
    const RunAnalysis& a = in.a();
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
        out.push_back(fmt::format(
            "on device {} the workers that returned sooner kept it: every worker that kept it "
            "returned at least {:.1f}x sooner (gap p50) than every worker that handed it off",
            h.device, kGapApart));
    }
}

void gil_released(const RuleInput& in, std::vector<std::string>& out) {
    const RunAnalysis& a = in.a();
    const bool any = std::any_of(a.handoffs.begin(), a.handoffs.end(),
                                 [&](const HandoffStats& h) { return serialized(a, h); });
    // A batch (w.copy(count=n)) releases the GIL once for all its calls: still not held during
    // any of them, which is all this says.
    if (any && gil_of(in.r()) == GilPolicy::release)
        out.push_back(
            "gil = release: the GIL was not held during the copy calls, so it did not serialize "
            "them");
}

void per_context_in_run(const RuleInput& in, std::vector<std::string>& out) {
    const RunAnalysis& a = in.a();
    for (const HandoffStats& h : a.handoffs) {
        const DeviceStats* d = device_stats(a, h.device);
        // Within a context of one worker nothing could overlap anyway: it shows nothing.
        if (!d || h.contexts < 2 || h.context_peak != 1 || d->peak < 2 || h.context_workers < 2)
            continue;
        out.push_back(fmt::format(
            "device {}: transfers of {} CUDA contexts overlapped (peak {}) but never two within "
            "one context, though a context held up to {} workers",
            h.device, h.contexts, d->peak, h.context_workers));
    }
}

}  // namespace xfer::explain
