#pragma once
// The machine in one line: the runs during which other processes or the hypervisor took CPU
// time (the shared-machine finding), counted, with the range of their figures. Each run's own
// sentence is in the full report; the concise and brief ones say it once here.
#include <string>

#include "report/analysis/analysis.hpp"
#include "results/run_result.hpp"

namespace xfer {

// "\nMachine: shared during 7 of 25 runs: other processes kept 1.2-1.7 of 2 CPUs busy, ...\n",
// or "" where no run was flagged.
std::string machine_line(const Results& results, const Analysis& analysis);

}  // namespace xfer
