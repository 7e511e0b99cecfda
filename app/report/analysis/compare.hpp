#pragma once
// Run-against-run figures: the baseline comparison with its noise verdict, scaling against the
// 1-thread run, and the thread-attribute differences between launchers.
#include <string>
#include <vector>

#include "report/analysis/analysis.hpp"
#include "results/run_result.hpp"

namespace xfer {

// `run` against `baseline` (both analysed on their own first).
Comparison compare_runs(const RunAnalysis& run, const RunAnalysis& baseline);

// "0.98x (inside this run's noise +-6%)" | "0.56x (outside this run's noise +-5%)" |
// "1.10x (too few copies to judge noise)". `bound` is the bound on |ln ratio|.
std::string ratio_verdict(double ratio, double bound, bool judged);

// Fills scaling, scaling_reference and scaling_within_noise of every run with threads > 1
// that has a 1-thread run with the same scaling key.
void compute_scaling(const Results& results, std::vector<RunAnalysis>& runs);

// Differences between the workers' ThreadInfo of `run` and of `baseline`, worker i against
// baseline worker i (or its first worker). A difference every worker shares is listed once;
// one that only some workers have is prefixed "worker 1: " or "workers 1, 3: ".
std::vector<std::string> thread_differences(const RunResult& run, const RunResult& baseline);

}  // namespace xfer
