#pragma once
// The notes of a run's parts that ran apart (worker processes, MPI ranks, sub-interpreters),
// said once each.
#include <string>
#include <vector>

namespace xfer {

// One line per distinct note of per_process (per_process[k] from part k): "each of 4 worker
// processes: ..." when every part said it, else "worker processes 1, 3: ...". `unit` names a
// part in the plural ("worker processes", "ranks", "sub-interpreters").
std::vector<std::string> merge_notes(const std::vector<std::vector<std::string>>& per_process,
                                     const std::string& unit);

}  // namespace xfer
