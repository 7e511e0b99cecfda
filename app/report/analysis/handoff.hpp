#pragma once
// What happens between two copies: each worker's gap from a copy's return to its next call,
// and per device who had it after whom (hand-off rate, run length). Formulae and the handling
// of warm-up copies: docs/reading-reports.md, "Gaps and hand-offs".
#include <cstdint>
#include <optional>
#include <vector>

#include "report/analysis/analysis.hpp"
#include "results/run_result.hpp"

namespace xfer {

// For each record: its host start minus the host end of the same worker's previous copy
// (by host start); nullopt for a worker's first copy.
std::vector<std::optional<int64_t>> gaps_before(const std::vector<Record>& records);

// Fills a.gap_ns, a.handoffs, a.start_spread_ns and each a.workers[w].gap_ns / run_length.
// Needs a.workers filled (one entry per worker index); [first, last] is the run's measurement
// window on the host clock (first measured start .. last measured end).
void handoff_figures(const RunResult& run, int64_t first, int64_t last, RunAnalysis& a);

}  // namespace xfer
