#pragma once
// The statistics of one run on its own (no other run involved): window, aggregate, per-copy
// distributions, per-worker and per-device figures, concurrency, fairness.
#include "report/analysis.hpp"
#include "results/run_result.hpp"

namespace xfer {

RunAnalysis analyze_run(const RunResult& run);

}  // namespace xfer
