#include "report/analysis/trial_analysis.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "report/analysis/stats.hpp"
#include "report/analysis/trial_stats.hpp"
#include "util/format.hpp"

namespace xfer {

namespace {

std::vector<double> logs(const std::vector<double>& v) {
    std::vector<double> out;
    for (double x : v) out.push_back(std::log(x));
    return out;
}

// Every measured copy's host-timed bandwidth across the group's trials (not warm-ups, not
// blocks that raised).
double pooled_p50(const Results& results, const std::vector<int>& runs) {
    std::vector<double> bw;
    for (int i : runs) {
        for (const Record& r : results.runs[size_t(i)].records) {
            if (!r.warmup && !r.failed && r.host_duration_ns() > 0)
                bw.push_back(double(r.bytes) * 1e9 / double(r.host_duration_ns()));
        }
    }
    return stats::median(std::move(bw));
}

void trial_figures(const Results& results, TrialGroup& g) {
    if (g.aggregate_Bps.empty()) return;
    g.median_Bps = stats::median(g.aggregate_Bps);
    g.mean_Bps = stats::mean(g.aggregate_Bps);
    g.cv = g.mean_Bps > 0 ? stats::sample_stddev(g.aggregate_Bps) / g.mean_Bps : 0;
    if (auto ci = stats::mean_interval(g.aggregate_Bps, kTrialLevel)) {
        // The t interval is symmetric about the mean: with few trials far apart it reaches
        // below zero, which no bandwidth can be.
        g.ci_low = std::max(0.0, ci->low);
        g.ci_high = ci->high;
    }
    g.pooled_p50_Bps = pooled_p50(results, g.runs);
}

// The medians of the group's measured trials (those with an aggregate).
void trial_medians(const Results& results, const std::vector<RunAnalysis>& runs, TrialGroup& g) {
    std::vector<double> cv, jain, host, device;
    for (int k : g.runs) {
        const RunAnalysis& a = runs[size_t(k)];
        if (results.runs[size_t(k)].status != RunStatus::ok || a.copies == 0) continue;
        cv.push_back(a.per_copy_Bps.cv);
        jain.push_back(a.fairness_jain);
        host.push_back(a.host_concurrency);
        if (a.device_concurrency) device.push_back(*a.device_concurrency);
    }
    if (cv.empty()) return;
    g.per_copy_cv = stats::median(cv);
    g.fairness_jain = stats::median(jain);
    g.host_concurrency = stats::median(host);
    if (device.size() == cv.size()) g.device_concurrency = stats::median(device);
}

// The trials of `g` that ran beside threads left running by an earlier run.
std::vector<int> trials_beside_strays(const Results& results, const TrialGroup& g) {
    std::vector<int> trials;
    for (int k : g.runs)
        if (!results.runs[size_t(k)].stray_threads.empty())
            trials.push_back(results.runs[size_t(k)].position.trial);
    return trials;
}

std::string trial_list(const std::vector<int>& trials) {
    std::string out = trials.size() == 1 ? "trial " : "trials ";
    for (size_t i = 0; i < trials.size(); ++i) out += (i ? ", " : "") + std::to_string(trials[i]);
    return out;
}

std::string configured_baseline(const Results& results) {
    const auto& s = results.scenario;
    if (!s.is_object() || !s.contains("scenario") || !s["scenario"].is_object()) return "";
    const auto& b = s["scenario"].value("baseline", nlohmann::json());
    return b.is_string() ? b.get<std::string>() : "";
}

}  // namespace

std::vector<TrialGroup> group_trials(const Results& results, const std::vector<RunAnalysis>& runs) {
    std::vector<TrialGroup> groups;
    for (size_t i = 0; i < results.runs.size(); ++i) {
        const RunResult& r = results.runs[i];
        // Trials share a label and differ in trial number: a second run with the label and
        // the same trial is another run (labels written by hand, results from before trials).
        auto g = std::find_if(groups.begin(), groups.end(), [&](const TrialGroup& x) {
            return x.label == r.position.label &&
                   std::none_of(x.runs.begin(), x.runs.end(), [&](int k) {
                       return results.runs[size_t(k)].position.trial == r.position.trial;
                   });
        });
        if (g == groups.end()) {
            groups.push_back(TrialGroup{});
            g = groups.end() - 1;
            g->label = r.position.label;
            g->base_label = r.position.base_label;
            g->sweep_point = r.position.sweep_point;
        }
        g->runs.push_back(int(i));
        if (r.status == RunStatus::ok && runs[i].copies > 0 && runs[i].aggregate_Bps > 0) {
            g->aggregate_Bps.push_back(runs[i].aggregate_Bps);
            g->p50_Bps.push_back(runs[i].per_copy_Bps.p50);
        }
    }
    // In plan order ([[run]] x [sweep], as the position's slot records it; results from before
    // trials ran in that order): the first at a sweep point is its default baseline.
    const auto position = [&](const TrialGroup& g) {
        return results.runs[size_t(g.runs.front())].position.slot;
    };
    std::stable_sort(groups.begin(), groups.end(), [&](const TrialGroup& a, const TrialGroup& b) {
        return position(a) < position(b);
    });
    for (TrialGroup& g : groups) {
        trial_figures(results, g);
        trial_medians(results, runs, g);
    }
    return groups;
}

const char* finding_name(TrialComparison::Finding f) {
    using Finding = TrialComparison::Finding;
    switch (f) {
        case Finding::faster:
            return "faster";
        case Finding::slower:
            return "slower";
        case Finding::no_difference:
            return "no difference found";
        case Finding::negligible:
            return "negligible";
        case Finding::not_testable:
            return "not testable";
        case Finding::not_tested:
            return "not tested";
    }
    return "?";
}

std::string trial_verdict(const TrialComparison& c) {
    using Finding = TrialComparison::Finding;
    const std::string ratio = fmtx::ratio(c.ratio);
    if (c.finding == Finding::not_tested) {
        const size_t fewest = std::min(c.trials, c.baseline_trials);
        return fmt::format(
            "{}, not tested ({} trial{}: between-run drift unknown; run with "
            "--trials {})",
            ratio, fewest, fewest == 1 ? "" : "s", kSuggestedTrials);
    }
    if (c.finding == Finding::not_testable) {
        return fmt::format(
            "{}, not testable with {} vs {} trials (the smallest p they can give is {:.2g}; run "
            "with --trials {})",
            ratio, c.trials, c.baseline_trials,
            stats::smallest_mann_whitney_p(c.trials, c.baseline_trials), kSuggestedTrials);
    }
    const std::string ci =
        c.ci_low ? fmt::format("95% CI {}, ",
                               fmtx::interval(fmtx::ratio(*c.ci_low), fmtx::ratio(*c.ci_high)))
                 : std::string("no 95% CI below 4 trials a side, ");
    const std::string word = c.finding == Finding::negligible
                                 ? fmt::format("negligible: under {:.0f} %", kNegligibleRatio * 100)
                                 : finding_name(c.finding);
    return fmt::format("{}, {} ({}Mann-Whitney p={:.3g}, {} vs {} trials)", ratio, word, ci, c.p,
                       c.trials, c.baseline_trials);
}

std::string suspect_trials(const Results& results, const TrialGroup& run,
                           const Results& baseline_results, const TrialGroup& baseline) {
    const std::vector<int> here = trials_beside_strays(results, run);
    const std::vector<int> there = trials_beside_strays(baseline_results, baseline);
    if (here.empty() && there.empty()) return "";
    std::string which = here.empty() ? "" : trial_list(here) + " here";
    if (!there.empty())
        which += (which.empty() ? "" : " and ") + trial_list(there) + " of the baseline";
    return "; suspect: " + which + (here.size() + there.size() == 1 ? " was" : " were") +
           " measured beside threads left running by an earlier run";
}

TrialComparison compare_groups(const TrialGroup& run, const TrialGroup& baseline, int baseline_at) {
    using Finding = TrialComparison::Finding;
    TrialComparison c;
    c.baseline_group = baseline_at;
    c.trials = run.aggregate_Bps.size();
    c.baseline_trials = baseline.aggregate_Bps.size();
    c.ratio = baseline.median_Bps > 0 ? run.median_Bps / baseline.median_Bps : 0;
    const double level = 1 - kTrialLevel;
    if (c.trials < 2 || c.baseline_trials < 2) {
        c.finding = Finding::not_tested;
    } else if (stats::smallest_mann_whitney_p(c.trials, c.baseline_trials) >= level) {
        // "No difference found" would claim what these trial counts cannot show.
        c.finding = Finding::not_testable;
    } else {
        const auto a = logs(run.aggregate_Bps), b = logs(baseline.aggregate_Bps);
        c.p = stats::mann_whitney(a, b).p;
        if (auto ci = stats::shift_interval(a, b, kTrialLevel)) {
            c.ci_low = std::exp(ci->low);
            c.ci_high = std::exp(ci->high);
        }
        // The test decides; the median ratio says which way and whether it matters.
        if (c.p >= level)
            c.finding = Finding::no_difference;
        else if (std::abs(c.ratio - 1) < kNegligibleRatio)
            c.finding = Finding::negligible;
        else
            c.finding = c.ratio < 1 ? Finding::slower : Finding::faster;
    }
    c.verdict = trial_verdict(c);
    return c;
}

void compare_trials(const Results& results, std::vector<TrialGroup>& groups) {
    const std::string wanted = configured_baseline(results);
    std::vector<bool> done(groups.size(), false);
    for (size_t i = 0; i < groups.size(); ++i) {
        if (done[i]) continue;
        // The groups of this sweep point, and its baseline among them.
        std::vector<size_t> point;
        for (size_t j = i; j < groups.size(); ++j) {
            if (!done[j] && groups[j].sweep_point == groups[i].sweep_point) {
                point.push_back(j);
                done[j] = true;
            }
        }
        std::optional<size_t> base;
        for (size_t j : point) {
            if (groups[j].aggregate_Bps.empty()) continue;
            if (!wanted.empty() && groups[j].base_label == wanted) {
                base = j;
                break;
            }
            if (!base) base = j;
        }
        if (base && !wanted.empty() && groups[*base].base_label != wanted) {
            // The named baseline has nothing measured here: no comparison at this point
            // rather than one against a run the reader did not choose.
            base.reset();
        }
        if (!base) continue;
        groups[*base].is_baseline = true;
        for (size_t j : point) {
            if (j == *base || groups[j].aggregate_Bps.empty()) continue;
            groups[j].vs_baseline = compare_groups(groups[j], groups[*base], int(*base));
            groups[j].vs_baseline->verdict +=
                suspect_trials(results, groups[j], results, groups[*base]);
        }
    }
}

}  // namespace xfer
