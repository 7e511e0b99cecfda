#pragma once
// After a write failed (exit 3): how many completed runs each file of the results folder
// holds, read back from the files themselves. Counted as the plan went, the figures could name
// a count no file held (a run kept in memory, a rewrite that half failed).
#include <cstddef>
#include <filesystem>
#include <string>

namespace xfer {

// "3 of the 5 completed run(s): 3 in DIR/journal.jsonl, 2 in results.sqlite, 1 in
// results.json": the most any file holds, of `completed`, then each file's own count ("none"
// for a file that is not there, "unreadable (why)" for one that cannot be read).
std::string runs_on_disk(const std::filesystem::path& dir, size_t completed);

// The runs in the journal at `path`: one per line (a line cut by a full disk or a kill has no
// newline yet); 0 when it cannot be read.
size_t journal_run_count(const std::filesystem::path& path);

}  // namespace xfer
