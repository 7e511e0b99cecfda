#pragma once
// What the concise and brief reports (report/render/reporter.hpp) say in words, each thing once:
// the runs' notes grouped by text, each finding once with the runs it holds for, and the errors of
// the runs that failed. The full report says these under each run instead.
#include <string>

#include "report/analysis/analysis.hpp"
#include "results/run_result.hpp"

namespace xfer {

// Every note of every run, each text once: "note (every run): ..." or "note (runs 3, 8): ...".
std::string notes_block(const Results& results);

// Each finding once, by its rule, with the runs it holds for; a finding whose figures differ
// from run to run is shown as the first of those runs says it. `reading_only`: only findings
// that change how every figure of the run is read (ExplanationRule::changes_reading).
std::string findings_block(const Results& results, const Analysis& analysis, bool reading_only);

// The runs that failed, each with its status line and errors.
std::string error_sections(const Results& results);

}  // namespace xfer
