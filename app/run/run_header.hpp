#pragma once
#include "results/run_result.hpp"
#include "scenario/scenario.hpp"

namespace xfer {

// A RunResult that says which run it is (index, label, launcher, shape, sweep point, the
// resolved settings) and holds nothing measured yet. Every RunResult starts here.
RunResult run_result_header(const Run& run);

}  // namespace xfer
