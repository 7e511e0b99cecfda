#pragma once
// The analysis of a results file: each run's statistics (report/analysis/), the runs against
// each other, then the explanations' findings (report/explain/). Computed once; every reporter
// reads the result.
#include <vector>

#include "report/analysis/analysis.hpp"
#include "results/run_result.hpp"

namespace xfer {

Analysis analyze(const Results& results);
// The same with each run's own figures already computed (`run_stats[i]` is
// analyze_run(results.runs[i])): a plan being run analyses each run once, as it ends, and reuses
// that for the progress line and every rewrite of its files.
Analysis analyze(const Results& results, std::vector<RunAnalysis> run_stats);

}  // namespace xfer
