#pragma once
// The hand-off table of the default report: per run of the plan (label) and device, the
// hand-off findings of its trials (report/explain/explain_handoff.cpp) side by side, each figure
// as the range of the trials' own: how often the device changed hands, how many workers kept it
// and handed it off, and how soon they called again. The sentences themselves are --full's.
#include <string>

#include "report/analysis/analysis.hpp"
#include "results/run_result.hpp"

namespace xfer {

// "\nHand-off (serialized devices; ranges over the trials)\n<table>", or "" without hand-off
// findings.
std::string handoff_table(const Results& results, const Analysis& analysis);

}  // namespace xfer
