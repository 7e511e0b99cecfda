#pragma once
// Flags every command takes (and what run and report say about --brief). Each command's function
// lives in cmd_<name>.cpp with its header cmd_<name>.hpp, and returns an exit code (cli.hpp).
#include <optional>
#include <string>
#include <vector>

namespace xfer {

struct CommonOptions {
    std::optional<std::string> config;      // --config FILE
    std::vector<std::string> payload_dirs;  // --payload-dir DIR, repeatable
};

// run and report --brief: why it is refused with a terminal format other than the table.
inline std::string brief_needs_table(const std::string& format) {
    return "xferlab: --brief shortens the table (--format table); --format " + format +
           " has no brief form";
}

}  // namespace xfer
