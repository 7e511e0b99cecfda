#pragma once
// The why: lines that name a mechanism (report/explain.cpp calls these): who kept a serialized
// device and after what gap, serialization per CUDA context, the GIL only where the run held
// it. Each line is emitted only when the run's own records support it; thresholds are named
// in explain_mechanism.cpp and listed in docs/reading-reports.md.
#include <optional>
#include <string>
#include <vector>

#include "report/analysis.hpp"
#include "results/run_result.hpp"

namespace xfer {

// "release" or "hold" when the run's workers took the GIL around their copies (python and
// host+gil launchers, process/mpi workers running a payload); nullopt when no GIL was involved.
std::optional<std::string> gil_of(const RunResult& run);

// Host-side peak 1 with 2+ workers: short copies, a held GIL, or a lock that is not the GIL.
void explain_calls_serialized(const RunResult& run, const RunAnalysis& a,
                              std::vector<std::string>& out);
// Per serialized device: run lengths and gaps of the workers that kept it and handed it off.
void explain_handoff(const RunResult& run, const RunAnalysis& a, std::vector<std::string>& out);
// Copies overlap across CUDA contexts but never within one.
void explain_contexts(const RunAnalysis& a, std::vector<std::string>& out);

// Across runs: the gap against the hand-off rate on serialized devices, shared-context threads
// against per-worker contexts and processes, and the warm-up line (once per report).
void summarize_mechanisms(const Results& results, const Analysis& analysis,
                          std::vector<std::string>& out);

}  // namespace xfer
