#pragma once
#include <optional>
#include <string>

#include "results/run_result.hpp"

namespace xfer {

// A results.json, or a journal.jsonl (one run per line, written as each run ends: what is left
// when xferlab was killed before writing anything else). Says on stderr why a file cannot be
// read and returns nothing then.
std::optional<Results> read_results_file(const std::string& file);

}  // namespace xfer
