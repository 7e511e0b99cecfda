#pragma once

#include "cli/common_options.hpp"

namespace xfer {

CLI::App* add_list_command(CLI::App& app, CommonOptions& options);

// `xferlab list`: the scenarios with their one-line descriptions.
int cmd_list(const CommonOptions& common);

}  // namespace xfer
