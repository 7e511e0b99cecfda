#pragma once
// Reading a file xferlab is given (a scenario, a config, a results file): a regular file only,
// and at most a bound. `check /dev/zero` and `report /dev/zero` read until memory ran out (22 GB
// in a minute), and a FIFO given as a scenario file, or lying in `list`'s folder, hung in open()
// waiting for a writer. A path is looked at with stat() first (a device or FIFO is never
// opened), then opened without blocking and looked at again with fstat() (what was opened is
// what is read, whatever replaced the path in between).
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

namespace xfer {

// The bounds (the text is held in memory whole, and parsed there).
inline constexpr uint64_t kMaxTextInputBytes = uint64_t(16) << 20;    // scenario, config
inline constexpr uint64_t kMaxResultsInputBytes = uint64_t(4) << 30;  // results.json, journal

// Why `path` cannot be read as a regular file (following links), as a reason to put after
// "cannot read FILE: ": "it is a FIFO (named pipe), not a regular file: ...", "it is a
// character device, ...", "it is a folder, not a file", the system's reason ("No such file or
// directory") where it cannot be looked at; "" for a regular file.
std::string not_regular_file(const std::filesystem::path& path);

// An open descriptor of the regular file `path` (O_RDONLY | O_CLOEXEC, opened with O_NONBLOCK
// so that a FIFO put there meanwhile cannot block the open), or -1 with `why` set as
// not_regular_file says it. The caller closes it.
int open_regular_file(const std::filesystem::path& path, std::string& why);

// The whole text of the regular file `path`, or nullopt with `why` set: not a regular file
// (not_regular_file), unreadable (the system's reason), or larger than `max_bytes` ("it is
// 80 MiB, more than the 16 MiB xferlab reads from such a file"; a file that grows while it is
// read stops there too).
std::optional<std::string> read_input_file(const std::filesystem::path& path, uint64_t max_bytes,
                                           std::string& why);

}  // namespace xfer
