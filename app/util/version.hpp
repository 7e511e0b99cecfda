#pragma once
#include <string>

namespace xfer {
std::string tool_version();   // e.g. "0.1.0"
std::string git_describe();   // `git describe` of the source tree at the last build
}  // namespace xfer
