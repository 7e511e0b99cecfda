#pragma once
// Trials: every run of the plan repeated scenario.trials times, in scenario.order, so that
// verdicts rest on the spread between runs and not only on the copies inside one run.
#include <cstdint>
#include <string>
#include <vector>

#include "scenario/scenario.hpp"

namespace xfer::scenario_internal {

// A shuffled order without a seed gets one here (from the system's entropy), so that the
// results record the order that ran.
void choose_seed(Scenario& s);

// The plan's runs (one trial each, in [[run]] x [sweep] order) repeated s.trials times in
// s.order: interleaved (ABC ABC ...), shuffled (each round ABC in its own random order, from
// s.seed) or grouped (AAA BBB ...). Indexes are renumbered in the order they run.
std::vector<Run> schedule_trials(const std::vector<Run>& runs, const Scenario& s);

}  // namespace xfer::scenario_internal
