#pragma once
// Plain-language findings, each emitted only when the numbers support it. The thresholds are
// named constants in explain.cpp and listed in docs/reading-reports.md.
#include <string>
#include <vector>

#include "report/analysis.hpp"
#include "results/run_result.hpp"

namespace xfer {

// Findings about one run (its own figures, its scaling and its baseline comparison).
std::vector<std::string> explain_run(const RunResult& run, const RunAnalysis& a);

// Findings across runs: the baseline, fastest and slowest, noise verdicts, failures.
std::vector<std::string> summarize(const Results& results, const Analysis& analysis);

}  // namespace xfer
