#pragma once
// The statistics of one run on its own (no other run involved): window, aggregate, per-copy
// distributions, per-worker and per-device figures, concurrency, fairness.
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "report/analysis/analysis.hpp"
#include "results/run_result.hpp"

namespace xfer {

RunAnalysis analyze_run(const RunResult& run);

// The aggregate's window: from the first measured copy's start to the last one's end (warm-ups
// and failed timed blocks left out), host clock; nullopt without a measured copy.
std::optional<std::pair<int64_t, int64_t>> measured_window(const std::vector<Record>& records);

}  // namespace xfer
