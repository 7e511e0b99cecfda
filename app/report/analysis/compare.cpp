#include "report/analysis/compare.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "report/analysis/stats.hpp"
#include "system/thread_info.hpp"
#include "util/format.hpp"

namespace xfer {

namespace {

// Noise bound of a ratio of aggregates. The aggregate is bytes over a window made of copy
// times, so its spread is that of the mean copy duration: CV of per-copy durations / sqrt(n).
// When copies wait for each other, durations vary more than the aggregate does: the rule then
// errs toward "within noise", never toward calling a difference real.
double aggregate_noise(const RunAnalysis& a, const RunAnalysis& b) {
    return stats::noise_bound(
        stats::relative_standard_error(a.per_copy_ns.cv, a.per_copy_ns.n, false),
        stats::relative_standard_error(b.per_copy_ns.cv, b.per_copy_ns.n, false));
}

// Noise bound of a ratio of per-copy bandwidth medians.
double p50_noise(const RunAnalysis& a, const RunAnalysis& b) {
    return stats::noise_bound(
        stats::relative_standard_error(a.per_copy_Bps.cv, a.per_copy_Bps.n, true),
        stats::relative_standard_error(b.per_copy_Bps.cv, b.per_copy_Bps.n, true));
}

// A spread needs at least two copies.
bool judgeable(const RunAnalysis& a) { return a.per_copy_ns.n >= 2 && a.per_copy_Bps.n >= 2; }

std::string noise_percent(double bound) { return fmtx::percent(std::exp(bound) - 1); }

}  // namespace

std::string ratio_verdict(double ratio, double bound, bool judged) {
    // No "faster"/"slower" here: those words belong to the verdict across trials
    // (report/analysis/trial_analysis.cpp); one run's copies cannot show drift between runs.
    if (!judged) return fmtx::ratio(ratio) + " (too few copies to judge noise)";
    return fmt::format("{} ({} this run's noise +-{})", fmtx::ratio(ratio),
                       stats::within_noise(ratio, bound) ? "inside" : "outside",
                       noise_percent(bound));
}

Comparison compare_runs(const RunAnalysis& run, const RunAnalysis& baseline) {
    Comparison c;
    c.baseline_run = baseline.run;
    c.aggregate_ratio = baseline.aggregate_Bps > 0 ? run.aggregate_Bps / baseline.aggregate_Bps : 0;
    c.p50_ratio =
        baseline.per_copy_Bps.p50 > 0 ? run.per_copy_Bps.p50 / baseline.per_copy_Bps.p50 : 0;
    c.judged = judgeable(run) && judgeable(baseline) && c.aggregate_ratio > 0;
    c.aggregate_noise = aggregate_noise(run, baseline);
    c.p50_noise = p50_noise(run, baseline);
    c.within_noise = c.judged && stats::within_noise(c.aggregate_ratio, c.aggregate_noise);
    c.p50_within_noise = c.judged && stats::within_noise(c.p50_ratio, c.p50_noise);
    c.verdict = ratio_verdict(c.aggregate_ratio, c.aggregate_noise, c.judged);
    return c;
}

void compute_scaling(const Results& results, std::vector<RunAnalysis>& runs) {
    for (size_t i = 0; i < results.runs.size(); ++i) {
        const RunResult& run = results.runs[i];
        if (run.settings.threads.count <= 1 || run.position.scaling_key.empty() ||
            runs[i].aggregate_Bps <= 0)
            continue;
        // The one-thread run of the same trial: trials of one run are apart in time, and a
        // later trial held against trial 1's one-thread run would fold drift into the ratio.
        std::optional<size_t> same_trial, any_trial;
        for (size_t j = 0; j < results.runs.size(); ++j) {
            const RunResult& ref = results.runs[j];
            if (j == i || ref.settings.threads.count != 1 ||
                ref.position.scaling_key != run.position.scaling_key)
                continue;
            if (ref.status == RunStatus::skipped || runs[j].aggregate_Bps <= 0) continue;
            if (!any_trial) any_trial = j;
            if (ref.position.trial == run.position.trial) {
                same_trial = j;
                break;
            }
        }
        if (same_trial || any_trial) {
            const size_t j = same_trial ? *same_trial : *any_trial;
            const RunResult& ref = results.runs[j];
            runs[i].scaling = runs[i].aggregate_Bps / runs[j].aggregate_Bps;
            runs[i].scaling_reference = ref.position.index;
            if (judgeable(runs[i]) && judgeable(runs[j])) {
                runs[i].scaling_within_noise =
                    stats::within_noise(*runs[i].scaling, aggregate_noise(runs[i], runs[j]));
            }
        }
    }
}

std::vector<std::string> thread_differences(const RunResult& run, const RunResult& baseline) {
    std::map<int, const ThreadInfo*> base_workers;
    for (const ThreadInfo& t : baseline.threads_info) {
        if (t.worker >= 0) base_workers.emplace(t.worker, &t);
    }
    if (base_workers.empty()) return {};

    // Each difference with the workers that have it, in first-seen order.
    std::vector<std::pair<std::string, std::vector<int>>> found;
    int compared = 0;
    for (const ThreadInfo& t : run.threads_info) {
        if (t.worker < 0) continue;
        auto it = base_workers.find(t.worker);
        const ThreadInfo& base =
            it != base_workers.end() ? *it->second : *base_workers.begin()->second;
        ++compared;
        for (std::string& d : thread_info_differences(base, t)) {
            auto f = std::find_if(found.begin(), found.end(),
                                  [&](const auto& e) { return e.first == d; });
            if (f == found.end()) {
                found.emplace_back(std::move(d), std::vector<int>{t.worker});
            } else {
                f->second.push_back(t.worker);
            }
        }
    }
    std::vector<std::string> out;
    for (const auto& [text, workers] : found) {
        if (int(workers.size()) == compared) {
            out.push_back(text);
            continue;
        }
        out.push_back(fmt::format("{} {}: {}", workers.size() == 1 ? "worker" : "workers",
                                  fmt::join(workers, ", "), text));
    }
    return out;
}

}  // namespace xfer
