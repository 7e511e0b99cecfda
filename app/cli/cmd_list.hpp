#pragma once

#include "cli/common_options.hpp"

namespace xfer {

// `xferlab list`: the scenarios with their one-line descriptions.
int cmd_list(const CommonOptions& common);

}  // namespace xfer
