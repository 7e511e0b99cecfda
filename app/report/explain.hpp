#pragma once
// Plain-language findings, each emitted only when the numbers support it: the rules of
// report/explanation_rules.hpp, listed in docs/reading-reports.md ("Explanations").
#include <string>
#include <vector>

#include "report/analysis.hpp"
#include "results/run_result.hpp"

namespace xfer {

// Findings about results.runs[run]: its own figures, and against the plan's other runs where a
// rule needs them (its baseline, its one-thread run, a switch). `analysis` has every run's
// figures, comparisons and trial groups. `rules` (when given) gets the id of the rule of each
// finding, in the same order.
std::vector<std::string> explain_run(const Results& results, const Analysis& analysis, size_t run,
                                     std::vector<std::string>* rules = nullptr);

// Findings across runs: the baseline, verdicts, noise, causes with their switch, failures.
std::vector<std::string> summarize(const Results& results, const Analysis& analysis);

}  // namespace xfer
