#pragma once
// The terminal report's section of a watched program (`xferlab watch`): its copies by kind of
// copy and memory and by size class, the time its calls spent in pageable copies and waiting
// while another transfer was on the device, each thread's share, where the host side of its
// pageable copies lived against each device's nearest NUMA node, and what xferlab timed on
// each device after the program ended (only what it timed). Empty for a plan without one.
#include <string>

#include "report/analysis/analysis.hpp"
#include "results/run_result.hpp"

namespace xfer {

std::string watched_sections(const Results& results, const Analysis& analysis);

}  // namespace xfer
