#pragma once
// Runs grouped by label into their trials, each group's baseline at its own sweep point, and
// the verdicts across trials (method: docs/reading-reports.md, "Verdicts across trials").
#include <optional>
#include <string>
#include <vector>

#include "report/analysis/analysis.hpp"
#include "results/run_result.hpp"

namespace xfer {

// The confidence level of every interval and test across trials.
constexpr double kTrialLevel = 0.95;
// The trials --trials suggests where a run has too few to judge (4 a side is the least at which
// Mann-Whitney can reach p < 0.05; 5 leaves one trial to spare).
constexpr int kSuggestedTrials = 5;

// The groups of `results` (runs sharing a label), each with its trial statistics; `runs` is
// the per-run analysis in the same order as results.runs.
std::vector<TrialGroup> group_trials(const Results& results, const std::vector<RunAnalysis>& runs);

// The baseline of every sweep point (scenario.baseline's [[run]] there, else the first group
// with measured copies) and every other group's comparison with it.
void compare_trials(const Results& results, std::vector<TrialGroup>& groups);

// `run` against `baseline` across their trials.
TrialComparison compare_groups(const TrialGroup& run, const TrialGroup& baseline, int baseline_at);

// A difference found by the test but smaller than this (1 %) is called negligible, not faster
// or slower: real, and too small to act on.
constexpr double kNegligibleRatio = 0.01;

// "faster", "slower", "no difference found", "negligible", "not testable", "not tested".
const char* finding_name(TrialComparison::Finding f);
// Every finding, in the order summaries list them.
inline constexpr TrialComparison::Finding kFindings[] = {
    TrialComparison::Finding::faster,        TrialComparison::Finding::slower,
    TrialComparison::Finding::no_difference, TrialComparison::Finding::negligible,
    TrialComparison::Finding::not_testable,  TrialComparison::Finding::not_tested};

// The one notation of verdicts: "<ratio>x, <finding> (<evidence>)".
std::string trial_verdict(const TrialComparison& c);

// What a verdict of `run` (runs of `results`) against `baseline` (runs of `baseline_results`)
// adds when some of their trials were measured beside threads left running by an earlier run
// (RunResult::stray_threads): "; suspect: trial 2 here and trial 1 of the baseline were
// measured beside a thread left running by an earlier run". "" when none was.
std::string suspect_trials(const Results& results, const TrialGroup& run,
                           const Results& baseline_results, const TrialGroup& baseline);

}  // namespace xfer
