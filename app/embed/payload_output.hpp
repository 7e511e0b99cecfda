#pragma once
// Where a payload's print(), sys.stdout and sys.stderr go: never to xferlab's stdout, which
// carries the report (json/csv must stay parseable). Each line goes to stderr, prefixed with
// the payload, run and worker that wrote it, and is copied into the results folder.
#include <filesystem>
#include <string>
#include <string_view>

namespace xfer {

// Appends a copy of every payload output line to `log` (created at the first line); an empty
// path stops copying. Worker processes append to their parent's file.
void set_payload_output_log(const std::filesystem::path& log);
std::filesystem::path payload_output_log();

// "[payload threads.py run 2 w0] " for a payload thread bound to worker 0; the thread's name
// instead of w<i> when it is bound to none; "[payload <thread>] " between runs.
std::string payload_output_prefix(const std::string& payload, int run, int worker,
                                  const std::string& thread);

// Writes `lines` (complete lines, each ending in '\n'), each line after `prefix`, to stderr
// and to the log.
void write_payload_output(const std::string& prefix, std::string_view lines);

}  // namespace xfer
