#pragma once
// Plain-language findings, each emitted only when the numbers support it: the rules of
// report/explain/explanation_rules.hpp, listed in docs/reading-reports.md ("Explanations").
#include <string>
#include <vector>

#include "report/analysis/analysis.hpp"
#include "report/analysis/finding.hpp"
#include "results/run_result.hpp"

namespace xfer {

// Findings about results.runs[run]: its own figures, and against the plan's other runs where a
// rule needs them (its baseline, its one-thread run, a switch). `analysis` has every run's
// figures, comparisons and trial groups; each finding names its rule.
std::vector<Finding> explain_run(const Results& results, const Analysis& analysis, size_t run);

// Findings across runs: the baseline, verdicts, noise, causes with their switch, failures.
std::vector<Finding> summarize(const Results& results, const Analysis& analysis);

}  // namespace xfer
