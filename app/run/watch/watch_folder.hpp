#pragma once
// The results folder of `xferlab watch`, taken as `xferlab run` takes its own (run/output_dir,
// run/output_lock): locked for this command, refused while it holds an earlier run's output
// unless --force deletes that output, proven writable. Its subfolder watch/ receives the
// program's record files (one per process); earlier record files there count as output too.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "run/output/output_lock.hpp"

namespace xfer {

inline constexpr const char* kWatchRecordsFolder = "watch";

// The folder locked and ready, with watch/ created and empty of record files; nothing after
// saying why on stderr. `quiet_busy`: a folder in use or holding output is passed over without
// a word (names made from {timestamp}). `created` says whether this call made the folder.
std::optional<OutputLock> take_watch_folder(const std::filesystem::path& dir, bool force,
                                            bool quiet_busy, bool& created);

// The record files (*.xwatch) an earlier watch left in DIR/watch.
std::vector<std::string> earlier_records(const std::filesystem::path& dir);

}  // namespace xfer
