#pragma once
// What `xferlab report`, `plot` and `compare` read: a results.json, a results.sqlite or a
// journal.jsonl (the records a results.json or journal leaves to results.sqlite loaded from
// there), or the results folder that holds one of them. Anything else a user is likely to give
// (an empty folder, trace.json, copies.csv, a scenario file) is named as what it is, with the
// file to give instead.
#include <optional>
#include <string>

#include "results/run_result.hpp"

namespace xfer {

// The file to read for `file`: a results folder's results.json, else its results.sqlite, else
// its journal.jsonl (the first of them in it); `file` itself otherwise (a folder with none of
// them included: read_report_input names it as such).
std::string report_input_file(const std::string& file);

// The results in `file` (a results folder: report_input_file's file in it); nothing after
// printing on stderr why not and what to give instead.
std::optional<Results> read_report_input(const std::string& file);

}  // namespace xfer
