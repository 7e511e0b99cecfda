#pragma once
// `run --fit`: when the plan does not fit this process's memory, run it with the largest
// power-of-two copy size that does (down to 64 MiB), as if `--set transfer.bytes=...` had
// been given, and say so in one line and in results.json.
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "run/plan/plan_runner.hpp"
#include "scenario/scenario.hpp"

namespace xfer {

struct FitOutcome {
    bool fits = false;
    std::string message;    // one line for the terminal; empty when the plan fits as written
    nlohmann::json record;  // results.json "sizing"
};

// The scenario as its file was read, finished with these --set flags (LoadedPlan's
// with_overrides): each size is tried on the parsed file, which is never read again.
using ScenarioWithSets = std::function<Scenario(const std::vector<std::string>& sets)>;

// Replaces `scenario` and `plan` by the sized-down ones when needed. Throws ScenarioError
// when the scenario no longer loads with the smaller size.
FitOutcome fit_plan(const ScenarioWithSets& with_sets, const std::vector<std::string>& sets,
                    PlanRunner& runner, Scenario& scenario, std::vector<Run>& plan);

}  // namespace xfer
