#pragma once
#include <string>
#include <vector>

#include "cli/common_options.hpp"

namespace xfer {

// `xferlab check`: validate scenario files, print the expanded plan, payloads, memory.
int cmd_check(const CommonOptions& common, const std::vector<std::string>& files,
              const std::vector<std::string>& sets);

}  // namespace xfer
