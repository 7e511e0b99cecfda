#pragma once
#include "results/run_result.hpp"
#include "scenario/scenario.hpp"

namespace xfer {

// A RunResult that says which run it is (its settings and position, as `run` has them) and
// holds nothing measured yet. Every RunResult starts here.
RunResult run_result_header(const Run& run);

}  // namespace xfer
