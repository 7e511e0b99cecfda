#pragma once
// The gaps taken apart ([threads] gap_stages and gap_counters): per stage of the gap between a
// worker's return and its next call, how long it took; per counter of the worker's thread, what
// it counted over the gap. Gaps are those the gap figures count (before a measured copy, after
// the same worker's previous one: report/analysis/handoff.cpp). Stage and counter definitions:
// docs/reading-reports.md ("The gap taken apart").
#include <array>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "results/run_result.hpp"

namespace xfer {

// A stage's or a counter's figures over the gaps that have it.
struct GapFigure {
    size_t n = 0;
    double p50 = 0, p90 = 0;
    size_t nonzero = 0;  // gaps where it was more than 0
};

struct GapStageStats {
    // Stages between consecutive stamps a gap has, keyed "return>attached", "attached>python",
    // "python>entry", "entry>start" (or "attached>entry" where the payload did not mark), in
    // that order; each over the gaps that had both stamps.
    std::vector<std::pair<std::string, GapFigure>> stages;
    size_t staged_gaps = 0;  // gaps with at least one stamp
    // Each counter over the gaps where it was read (ThreadCounter order).
    std::array<std::optional<GapFigure>, kThreadCounters> counters{};
    size_t counted_gaps = 0;  // gaps with at least one counter read
    bool empty() const { return staged_gaps == 0 && counted_gaps == 0; }
};

GapStageStats gap_stages_of(const RunResult& run);
// The full report's lines (none when the run took no gap apart).
std::vector<std::string> gap_stage_lines(const GapStageStats& g);

}  // namespace xfer
