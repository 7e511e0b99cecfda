#pragma once
// Flags every command takes. Each command's function lives in cmd_<name>.cpp with its header
// cmd_<name>.hpp, and returns an exit code (cli.hpp).
#include <optional>
#include <string>
#include <vector>

namespace xfer {

struct CommonOptions {
    std::optional<std::string> config;      // --config FILE
    std::vector<std::string> payload_dirs;  // --payload-dir DIR, repeatable
};

}  // namespace xfer
