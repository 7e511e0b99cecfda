#pragma once
#include <string>
#include <vector>

#include "cli/common_options.hpp"

namespace xfer {

struct CheckOptions {
    CommonOptions common;
    std::vector<std::string> files;
    std::vector<std::string> sets;  // --set key=value
    int trials = 0;                 // --trials N: --set scenario.trials=N (0: not given)
};

CLI::App* add_check_command(CLI::App& app, CheckOptions& options);

// `xferlab check`: validate scenario files, print the expanded plan, payloads, memory.
int cmd_check(const CheckOptions& options);

}  // namespace xfer
