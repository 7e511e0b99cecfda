// analyze(): each run on its own first (run_stats), then against other runs (compare), then
// the words (explain). Computed once; every reporter reads the result.
#include "report/analysis.hpp"

#include <algorithm>

#include "report/compare.hpp"
#include "report/explain.hpp"
#include "report/run_stats.hpp"
#include "report/stats.hpp"

namespace xfer {

Distribution distribution(std::vector<double> values) {
    Distribution d;
    d.n = values.size();
    if (values.empty()) return d;
    std::sort(values.begin(), values.end());
    d.min = values.front();
    d.max = values.back();
    d.p10 = stats::percentile_sorted(values, 0.10);
    d.p50 = stats::percentile_sorted(values, 0.50);
    d.p90 = stats::percentile_sorted(values, 0.90);
    d.mean = stats::mean(values);
    d.stddev = stats::sample_stddev(values);
    d.cv = d.mean != 0 ? d.stddev / d.mean : 0;
    return d;
}

Analysis analyze(const Results& results) {
    Analysis an;
    for (const RunResult& run : results.runs) an.runs.push_back(analyze_run(run));
    // Baseline: the first run that finished ok and measured something.
    for (size_t i = 0; i < results.runs.size(); ++i) {
        if (results.runs[i].status == RunStatus::ok && an.runs[i].copies > 0) {
            an.baseline_run = int(i);
            break;
        }
    }
    compute_scaling(results, an.runs);
    if (an.baseline_run) {
        const size_t b = size_t(*an.baseline_run);
        an.runs[b].is_baseline = true;
        for (size_t i = 0; i < an.runs.size(); ++i) {
            if (i == b || an.runs[i].copies == 0) continue;
            an.runs[i].vs_baseline = compare_runs(an.runs[i], an.runs[b]);
            an.runs[i].thread_differences = thread_differences(results.runs[i], results.runs[b]);
        }
    }
    for (size_t i = 0; i < an.runs.size(); ++i) {
        an.runs[i].explanations = explain_run(results.runs[i], an.runs[i]);
    }
    an.summary = summarize(results, an);
    return an;
}

}  // namespace xfer
