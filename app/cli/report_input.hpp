#pragma once
// What `xferlab report` reads: a results.json, a results.sqlite or a journal.jsonl (the records a
// results.json or journal leaves to results.sqlite loaded from there). Anything else a user is
// likely to give (the results folder, trace.json, copies.csv, a scenario file) is named as what it
// is, with the file to give instead.
#include <optional>
#include <string>

#include "results/run_result.hpp"

namespace xfer {

// The results in `file`; nothing after printing on stderr why not and what to give instead.
std::optional<Results> read_report_input(const std::string& file);

}  // namespace xfer
