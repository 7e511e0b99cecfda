// analyze(): each run on its own first (run_stats), then against other runs (compare), then
// the words (explain). Computed once; every reporter reads the result.
#include "report/explain/analyze.hpp"

#include "report/analysis/compare.hpp"
#include "report/explain/explain.hpp"
#include "report/analysis/run_stats.hpp"
#include "report/analysis/trial_analysis.hpp"
#include "report/analysis/host_nodes.hpp"
#include "report/analysis/watched.hpp"
#include "settings/vocabulary.hpp"

namespace xfer {

namespace {

// The run of `baseline` to hold a trial of another run against: the same trial, else the
// baseline's first trial with measured copies.
std::optional<size_t> baseline_trial(const Results& results, const Analysis& an,
                                     const TrialGroup& baseline, int trial) {
    std::optional<size_t> first;
    for (int i : baseline.runs) {
        const size_t b = size_t(i);
        if (results.runs[b].status != RunStatus::ok || an.runs[b].copies == 0) continue;
        if (results.runs[b].position.trial == trial) return b;
        if (!first) first = b;
    }
    return first;
}

// Each trial against the baseline of its sweep point, inside the one run (within-run noise).
void compare_within_runs(const Results& results, Analysis& an) {
    for (const TrialGroup& g : an.groups) {
        if (g.is_baseline) {
            for (int i : g.runs) an.runs[size_t(i)].is_baseline = an.runs[size_t(i)].copies > 0;
            continue;
        }
        if (!g.vs_baseline) continue;
        const TrialGroup& base = an.groups[size_t(g.vs_baseline->baseline_group)];
        for (int i : g.runs) {
            const size_t r = size_t(i);
            const auto b = baseline_trial(results, an, base, results.runs[r].position.trial);
            if (!b || an.runs[r].copies == 0) continue;
            an.runs[r].vs_baseline = compare_runs(an.runs[r], an.runs[*b]);
            an.runs[r].thread_differences = thread_differences(results.runs[r], results.runs[*b]);
        }
    }
    // The first baseline run (of the first sweep point's baseline, in plan order).
    for (size_t i = 0; i < an.runs.size() && !an.baseline_run; ++i)
        if (an.runs[i].is_baseline) an.baseline_run = int(i);
}

// Where each run's host pages lived; a watched program's own figures, and the runs xferlab
// timed after it against its copies.
void watched_figures(const Results& results, Analysis& an) {
    std::vector<double> aggregates;
    for (const RunAnalysis& a : an.runs) aggregates.push_back(a.aggregate_Bps);
    for (size_t i = 0; i < results.runs.size(); ++i) {
        an.runs[i].host_nodes = host_nodes(results.runs[i], results.devices);
        const LauncherDescriptor* d = find_launcher(results.runs[i].settings.launcher);
        if (!d || !d->traits.observes_program) continue;
        an.runs[i].watched = watched_stats(results.runs[i]);
        an.runs[i].watched->references = watched_references(results, i, aggregates);
    }
}

}  // namespace

Analysis analyze(const Results& results) {
    std::vector<RunAnalysis> run_stats;
    run_stats.reserve(results.runs.size());
    for (const RunResult& run : results.runs) run_stats.push_back(analyze_run(run));
    return analyze(results, std::move(run_stats));
}

Analysis analyze(const Results& results, std::vector<RunAnalysis> run_stats) {
    Analysis an;
    an.runs = std::move(run_stats);
    // Computed below from the other runs: a reused analysis must not keep an earlier plan's.
    for (RunAnalysis& a : an.runs) {
        a.scaling.reset();
        a.scaling_reference.reset();
        a.scaling_within_noise.reset();
        a.is_baseline = false;
        a.vs_baseline.reset();
        a.thread_differences.clear();
        a.findings.clear();
        a.watched.reset();
        a.host_nodes.clear();
    }
    compute_scaling(results, an.runs);
    an.groups = group_trials(results, an.runs);
    compare_trials(results, an.groups);
    compare_within_runs(results, an);
    watched_figures(results, an);
    for (size_t i = 0; i < an.runs.size(); ++i) {
        an.runs[i].findings = explain_run(results, an, i);
    }
    an.summary = summarize(results, an);
    return an;
}

}  // namespace xfer
