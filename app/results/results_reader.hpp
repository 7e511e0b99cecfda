#pragma once
// The one reader of a results folder and its files, for `xferlab report`, `plot` and `compare`:
// a results.json, a results.sqlite or a journal.jsonl (the records a results.json or journal
// leaves to results.sqlite loaded from there), or the results folder that holds one of them,
// read in folder_files.hpp's order: results.json once the plan has ended, results.sqlite while
// it runs or after it was killed, the journal where neither is. After a plan that stopped on a
// failed write, results.json may hold fewer runs than a file beside it: given the folder, the
// fuller file is read, and the report says so. Anything else a user is likely to give (an
// empty folder, trace.json, copies.csv, a scenario file) is named as what it is, with the file
// to give instead.
#include <iosfwd>
#include <optional>
#include <string>

#include "results/run_result.hpp"

namespace xfer {

// The file to read for `file`: a results folder's results.json, else its results.sqlite, else
// its journal.jsonl (the first of them in it); `file` itself otherwise (a folder with none of
// them included: read_results names it as such).
std::string results_file_in(const std::string& file);

// The results in `file` (a results folder: results_file_in's file in it); nothing after saying
// on `said` why not and what to give instead. What the reader had to leave out or read
// elsewhere is said on `said` and kept in the results' notes.
std::optional<Results> read_results(const std::string& file, std::ostream& said);

}  // namespace xfer
