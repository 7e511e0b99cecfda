#pragma once

#include "cli/common_options.hpp"

namespace xfer {

CLI::App* add_threads_command(CLI::App& app, CommonOptions& options);

// `xferlab threads`: ThreadInfo of main, host, OpenMP and Python threads side by side.
int cmd_threads(const CommonOptions& common);

}  // namespace xfer
