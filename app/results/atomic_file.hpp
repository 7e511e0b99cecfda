#pragma once
// Writing a result file so that a reader never sees half of it: the content goes to a temporary
// file in the same directory, is flushed to disk (fsync), and is renamed over the target.
#include <filesystem>
#include <string_view>

namespace xfer {

// Creates the parent directory if needed. Throws std::system_error naming the path on failure.
void write_file_atomically(const std::filesystem::path& path, std::string_view content);

}  // namespace xfer
