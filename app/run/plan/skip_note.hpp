#pragma once
// A skipped run carries its reason as one note, "skipped: <why>" ("launcher L skipped: <why>"),
// which the report prints and the progress line repeats: written and read here only.
#include <string>

#include "results/run_result.hpp"

namespace xfer {

// Adds the note; `subject` names what was skipped when it is not the run ("launcher host+gil").
void add_skip_note(RunResult& result, const std::string& why, const std::string& subject = "");

// The reason of the run's skip note; "" when it has none.
std::string skip_reason(const RunResult& result);

}  // namespace xfer
