#pragma once
#include <filesystem>
#include <string>

#include "results/run_result.hpp"

namespace xfer {

// Expands {timestamp} (UTC YYYYMMDD-HHMMSS) and {scenario} in `pattern`.
std::filesystem::path expand_output_dir(const std::string& pattern, const std::string& scenario);

// Creates `dir` and proves it writable by writing and removing a file. Throws
// std::runtime_error naming the folder and the reason, before any run starts.
void prepare_output_dir(const std::filesystem::path& dir);

// Appends one run of `plan` to `dir`/journal.jsonl (results/serialize.hpp: journal_line) and
// flushes it to disk, so that a crash or signal later in the plan keeps every completed run.
void append_journal(const std::filesystem::path& dir, const Results& plan, const RunResult& run);

}  // namespace xfer
