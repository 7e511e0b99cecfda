// The summary's causes: pairs of runs that differ in one setting alone
// (report/analysis/switches.hpp), where the effect holds on one side and not on the other in every
// trial (catalogue: docs/reading-reports.md, "Explanations").
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "report/analysis/switches.hpp"
#include "report/analysis/trial_stats.hpp"
#include "report/explain/explain_rules_internal.hpp"
#include "util/format.hpp"

namespace xfer::explain {

namespace {

int device_peak_in_flight(const RunAnalysis& a) {
    int peak = 0;
    for (const DeviceStats& d : a.devices) peak = std::max(peak, d.peak_in_flight);
    return peak;
}

// One side of a gap-decides pair in every trial: its hand-off rates and gap p50s.
struct GapSide {
    std::vector<size_t> runs;
    std::vector<double> rates, gaps;
};

bool side_of(const RuleInput& in, size_t run, GapSide& side) {
    const RunAnalysis& a = in.analysis.runs[run];
    const auto rate = serialized_handoff_rate(a);
    if (!rate || !a.gap_ns) return false;
    side.runs.push_back(run);
    side.rates.push_back(*rate);
    side.gaps.push_back(a.gap_ns->p50);
    return true;
}

// The keepers' side kept the device and the handers' handed it over in every trial, with the
// rates in their bands and the keepers' gaps kSwitchGapApart shorter.
bool gap_decides_holds(const GapSide& keep, const GapSide& hand) {
    for (size_t t = 0; t < keep.runs.size(); ++t)
        if (keep.rates[t] > kSwitchLowRate || hand.rates[t] < kSwitchHighRate ||
            keep.gaps[t] * kSwitchGapApart > hand.gaps[t])
            return false;
    return !keep.runs.empty();
}

// "{keep} (threads.between = {keep_between}, gap p50 {keep_gap}) kept the device (hand-off
// rate {keep_rate})" for side `name`.
void say_gap_side(const RuleInput& in, const GapSide& s, const std::string& name, const char* did,
                  Finding& f) {
    const RunResult& r = in.results.runs[s.runs.front()];
    const double gap = stats::median(s.gaps), rate = stats::median(s.rates);
    f.say(fmt::format("{{{0}}} (threads.between = {{{0}_between}}, gap p50 {{{0}_gap}}) {1} "
                      "(hand-off rate {{{0}_rate}})",
                      name, did))
        .runs(name, indexes(in.results, s.runs),
              runs_by_label(in.results, indexes(in.results, s.runs)))
        .claim(name + "_between", to_string(r.settings.threads.between))
        .figure(name + "_gap", gap, fmtx::duration(gap))
        .figure(name + "_rate", rate, fmt::format("{:.2f}", rate));
}

}  // namespace

void gap_decides(const RuleInput& in, std::vector<Finding>& out) {
    for (const SwitchPair& p : switch_pairs(in.results, switch_between)) {
        GapSide a, b;
        bool complete = true;
        for (const auto& [ra, rb] : p.trials) complete &= side_of(in, ra, a) && side_of(in, rb, b);
        if (!complete) continue;
        const bool a_keeps = gap_decides_holds(a, b), b_keeps = gap_decides_holds(b, a);
        if (!a_keeps && !b_keeps) continue;
        const GapSide& keep = a_keeps ? a : b;
        const GapSide& hand = a_keeps ? b : a;
        Finding f;
        say_gap_side(in, keep, "keep", "kept the device", f);
        f.say(" and ");
        say_gap_side(in, hand, "hand", "handed it over", f);
        f.say(": with nothing else changed, the gap after a copy decides who gets the device next");
        std::vector<size_t> rests_on = keep.runs;
        rests_on.insert(rests_on.end(), hand.runs.begin(), hand.runs.end());
        say_evidence(in.results, rests_on, keep.runs.size(), f);
        out.push_back(std::move(f));
    }
}

void context_switch(const RuleInput& in, std::vector<Finding>& out) {
    for (const SwitchPair& p : switch_pairs(in.results, switch_context)) {
        std::vector<size_t> primary, own;
        bool holds = true;
        for (auto [ra, rb] : p.trials) {
            if (in.results.runs[ra].settings.transfer.context == ContextKind::per_worker)
                std::swap(ra, rb);
            const RunAnalysis &shared = in.analysis.runs[ra], &separate = in.analysis.runs[rb];
            holds &= in.results.runs[ra].settings.threads.count >= 2 && !shared.devices.empty() &&
                     device_peak_in_flight(shared) == 1 && device_peak_in_flight(separate) >= 2;
            primary.push_back(ra);
            own.push_back(rb);
        }
        if (!holds || primary.empty()) continue;
        Finding f;
        f.say(fmt::format("with transfer.context = {} the threads never overlapped on a device "
                          "({{primary}}), with {} contexts they did ({{own}}): the serialization "
                          "is per context",
                          to_string(ContextKind::primary), to_string(ContextKind::per_worker)))
            .runs("primary", indexes(in.results, primary),
                  runs_by_label(in.results, indexes(in.results, primary)))
            .runs("own", indexes(in.results, own),
                  runs_by_label(in.results, indexes(in.results, own)));
        std::vector<size_t> rests_on = primary;
        rests_on.insert(rests_on.end(), own.begin(), own.end());
        say_evidence(in.results, rests_on, primary.size(), f);
        out.push_back(std::move(f));
    }
}

}  // namespace xfer::explain
