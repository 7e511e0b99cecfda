// The summary's interpreter switches: runs that differ in the Python launcher alone (python: one
// GIL for the process; python-ft: a free-threaded CPython, no GIL; python-subinterp: a
// sub-interpreter with its own GIL per worker), and what that did to the gap after a copy, with
// and without Python work between copies (catalogue: docs/reading-reports.md, "Explanations").
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "report/analysis/trial_stats.hpp"
#include "report/explain/explain_rules_internal.hpp"
#include "util/format.hpp"

namespace xfer::explain {

namespace {

// What a Python launcher's threads share of the GIL; nullptr for any other launcher.
const char* gil_of_launcher(const std::string& launcher) {
    if (launcher == "python") return "one GIL for the process";
    if (launcher == "python-ft") return "no GIL";
    if (launcher == "python-subinterp") return "a GIL per worker";
    return nullptr;
}

std::string& switch_launcher(RunSettings& s) { return s.launcher; }
nlohmann::json& switch_params(RunSettings& s) { return s.params; }

// The gap p50 of each run of `runs` (nullopt when one has none).
std::optional<std::vector<double>> gaps_of(const Analysis& analysis,
                                           const std::vector<size_t>& runs) {
    std::vector<double> gaps;
    for (size_t r : runs) {
        const auto& g = analysis.runs[r].gap_ns;
        if (!g) return std::nullopt;
        gaps.push_back(g->p50);
    }
    return gaps;
}

// The two sides of a launcher pair, by trial.
struct LauncherSides {
    std::vector<size_t> a, b;
};

LauncherSides sides_of(const SwitchPair& p) {
    LauncherSides s;
    for (const auto& [ra, rb] : p.trials) {
        s.a.push_back(ra);
        s.b.push_back(rb);
    }
    return s;
}

// "; the device changed hands at rate {x} against {y}" where, in every trial, both sides'
// devices were serialized and the sooner side kept them while the other handed them over.
void say_hand_off(const Analysis& analysis, const std::vector<size_t>& sooner,
                  const std::vector<size_t>& later, Finding& f) {
    std::vector<double> kept, handed;
    for (size_t t = 0; t < sooner.size(); ++t) {
        const auto k = serialized_handoff_rate(analysis.runs[sooner[t]]);
        const auto h = serialized_handoff_rate(analysis.runs[later[t]]);
        if (!k || !h || *k > kSwitchLowRate || *h < kSwitchHighRate) return;
        kept.push_back(*k);
        handed.push_back(*h);
    }
    const double k = stats::median(kept), h = stats::median(handed);
    f.say("; the device changed hands at rate {sooner_rate} against {later_rate}")
        .figure("sooner_rate", k, fmt::format("{:.2f}", k))
        .figure("later_rate", h, fmt::format("{:.2f}", h));
}

}  // namespace

void interpreter_gap(const RuleInput& in, std::vector<Finding>& out) {
    for (const SwitchPair& p : switch_pairs(in.results, switch_launcher)) {
        if (p.trials.size() < 2) continue;  // a claim across runs needs repeated trials
        const LauncherSides s = sides_of(p);
        const auto ga = gaps_of(in.analysis, s.a), gb = gaps_of(in.analysis, s.b);
        const std::string &la = in.results.runs[s.a.front()].settings.launcher,
                          &lb = in.results.runs[s.b.front()].settings.launcher;
        if (!ga || !gb || !gil_of_launcher(la) || !gil_of_launcher(lb)) continue;
        // The side that called again sooner in every trial, kInterpreterGapApart sooner each
        // time and its trials all below the other's.
        const bool a_sooner = (*ga)[0] < (*gb)[0];
        const auto& sooner_gaps = a_sooner ? *ga : *gb;
        const auto& later_gaps = a_sooner ? *gb : *ga;
        bool apart = *std::max_element(sooner_gaps.begin(), sooner_gaps.end()) <
                     *std::min_element(later_gaps.begin(), later_gaps.end());
        for (size_t t = 0; t < sooner_gaps.size(); ++t)
            apart &= sooner_gaps[t] * kInterpreterGapApart <= later_gaps[t];
        if (!apart) continue;
        const auto& sooner = a_sooner ? s.a : s.b;
        const auto& later = a_sooner ? s.b : s.a;
        const std::string& ls = a_sooner ? la : lb;
        const std::string& ll = a_sooner ? lb : la;
        const double gs = stats::median(sooner_gaps), gl = stats::median(later_gaps);
        Finding f;
        f.say(
             "{sooner_launcher} workers ({sooner_gil}; {sooner}) called again after a copy in "
             "p50 {sooner_gap} against {later_gap} for {later_launcher} workers ({later_gil}; "
             "{later}), at least " +
             fmt::format("{:.1f}", kInterpreterGapApart) +
             "x sooner in every trial ({trials}); the runs differ in the launcher alone, so the "
             "interpreter the threads ran in moved the gap")
            .runs("sooner", indexes(in.results, sooner),
                  runs_by_label(in.results, indexes(in.results, sooner)))
            .claim("sooner_launcher", ls)
            .claim("sooner_gil", gil_of_launcher(ls))
            .figure("sooner_gap", gs, fmtx::duration(gs))
            .figure("later_gap", gl, fmtx::duration(gl))
            .runs("later", indexes(in.results, later),
                  runs_by_label(in.results, indexes(in.results, later)))
            .claim("later_launcher", ll)
            .claim("later_gil", gil_of_launcher(ll))
            .figure("trials", double(sooner.size()), std::to_string(sooner.size()));
        say_hand_off(in.analysis, sooner, later, f);
        std::vector<size_t> rests_on = sooner;
        rests_on.insert(rests_on.end(), later.begin(), later.end());
        say_evidence(in.results, rests_on, sooner.size(), f);
        out.push_back(std::move(f));
    }
}

namespace {

// A Python launcher's runs without and with Python work between copies (params.work_us 0 and
// W > 0, nothing else different), by trial.
struct WorkPair {
    std::string launcher;
    double work_us = 0;
    std::vector<size_t> idle, working;
};

// The work_us of a run's params (0 when absent).
double work_us_of(const RunResult& r) {
    const auto it = r.settings.params.find("work_us");
    return it != r.settings.params.end() && it->is_number() ? it->get<double>() : 0;
}

// Whether `a` and `b` differ in params.work_us alone among their params.
bool params_differ_in_work_only(const RunResult& a, const RunResult& b) {
    nlohmann::json pa = a.settings.params, pb = b.settings.params;
    pa.erase("work_us");
    pb.erase("work_us");
    return pa == pb && work_us_of(a) != work_us_of(b);
}

std::vector<WorkPair> work_pairs(const Results& results) {
    std::vector<WorkPair> out;
    for (const SwitchPair& p : switch_pairs(results, switch_params)) {
        const RunResult &a = results.runs[p.trials.front().first],
                        &b = results.runs[p.trials.front().second];
        if (!gil_of_launcher(a.settings.launcher) || !params_differ_in_work_only(a, b)) continue;
        const bool a_idle = work_us_of(a) == 0;
        if (!a_idle && work_us_of(b) != 0) continue;  // one side without work
        WorkPair w;
        w.launcher = a.settings.launcher;
        w.work_us = a_idle ? work_us_of(b) : work_us_of(a);
        for (const auto& [ra, rb] : p.trials) {
            w.idle.push_back(a_idle ? ra : rb);
            w.working.push_back(a_idle ? rb : ra);
        }
        out.push_back(std::move(w));
    }
    return out;
}

// Per trial: the gap p50 the work added (with work minus without).
std::optional<std::vector<double>> added_gaps(const Analysis& analysis, const WorkPair& w) {
    const auto idle = gaps_of(analysis, w.idle), working = gaps_of(analysis, w.working);
    if (!idle || !working) return std::nullopt;
    std::vector<double> added;
    for (size_t t = 0; t < idle->size(); ++t) added.push_back((*working)[t] - (*idle)[t]);
    return added;
}

// Whether `x`'s runs and `y`'s runs differ in the launcher alone, trial by trial.
bool launcher_switch(const Results& results, const WorkPair& x, const WorkPair& y) {
    if (x.idle.size() != y.idle.size()) return false;
    for (size_t t = 0; t < x.idle.size(); ++t)
        if (!differ_only_in(results.runs[x.idle[t]], results.runs[y.idle[t]], switch_launcher) ||
            !differ_only_in(results.runs[x.working[t]], results.runs[y.working[t]],
                            switch_launcher))
            return false;
    return true;
}

}  // namespace

void gil_serializes_work(const RuleInput& in, std::vector<Finding>& out) {
    const auto pairs = work_pairs(in.results);
    for (const WorkPair& shared : pairs) {
        if (shared.launcher != "python") continue;
        for (const WorkPair& own : pairs) {
            if (own.launcher == "python" || own.idle.size() < 2 ||
                !launcher_switch(in.results, shared, own))
                continue;
            const auto ds = added_gaps(in.analysis, shared), dn = added_gaps(in.analysis, own);
            if (!ds || !dn) continue;
            // Every trial: the work added to the gap under one GIL, and kWorkTurns times what it
            // added where the workers did not share one.
            bool holds = true;
            for (size_t t = 0; t < ds->size(); ++t)
                holds &= (*ds)[t] > 0 && (*ds)[t] >= kWorkTurns * std::max((*dn)[t], 0.0);
            if (!holds) continue;
            const double d1 = stats::median(*ds), d2 = stats::median(*dn);
            std::vector<size_t> rests_on;
            for (const WorkPair* w : {&shared, &own})
                for (const auto* side : {&w->idle, &w->working})
                    rests_on.insert(rests_on.end(), side->begin(), side->end());
            Finding f =
                Finding{}
                    .say(
                        "Python work between copies (params.work_us = {work}) lengthened the "
                        "gap after a copy by {shared_added} under python (one GIL for the "
                        "process; {shared_runs}) and by {own_added} under {own_launcher} "
                        "({own_gil}; {own_runs}), medians of {trials} trials, at least " +
                        fmt::format("{:.1f}", kWorkTurns) +
                        "x more under one GIL in every trial: under one GIL the workers' "
                        "Python work took turns")
                    .claim("work", trimmed(shared.work_us, 3))
                    .figure("shared_added", d1, fmtx::duration(d1))
                    .runs("shared_runs", indexes(in.results, shared.working),
                          runs_by_label(in.results, indexes(in.results, shared.working)))
                    .figure("own_added", d2, fmtx::duration(d2))
                    .claim("own_launcher", own.launcher)
                    .claim("own_gil", gil_of_launcher(own.launcher))
                    .runs("own_runs", indexes(in.results, own.working),
                          runs_by_label(in.results, indexes(in.results, own.working)))
                    .figure("trials", double(ds->size()), std::to_string(ds->size()));
            say_evidence(in.results, rests_on, ds->size(), f);
            out.push_back(std::move(f));
        }
    }
}

}  // namespace xfer::explain
