#pragma once
// Plan size limits and the resolved scenario written into results (expand_plan and
// to_json(Run) are declared in loader.hpp).
#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "results/results_checks.hpp"
#include "scenario/scenario.hpp"

namespace xfer::scenario_internal {

// A plan larger than this is refused before anything runs (results/results_checks.hpp).
using xfer::kMaxPlanRuns;

// The product of the sweep's value counts (1 without a sweep), saturating at SIZE_MAX.
size_t sweep_point_count(const Scenario& s);

// Why the plan is too large ("the sweep expands to ... runs"), or nullopt.
std::optional<std::string> plan_size_problem(const Scenario& s);

// The label of each [[run]] without a sweep point (the label written, or the derived one): what
// scenario.baseline names.
std::vector<std::string> base_labels(const Scenario& s);

// Why scenario.baseline names no [[run]] ("... the labels are ..."), or nullopt.
std::optional<std::string> baseline_problem(const Scenario& s);

// The whole scenario with defaults filled in, in the file's vocabulary.
nlohmann::json resolved_json(const Scenario& s, const std::vector<std::string>& set_flags);

}  // namespace xfer::scenario_internal
