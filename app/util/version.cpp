#include "util/version.hpp"

// XFER_GIT_DESCRIBE: written at every build by cmake/version_stamp.cmake.
#include "xfer_git_describe.h"

namespace xfer {
std::string tool_version() { return XFER_VERSION; }
std::string git_describe() { return XFER_GIT_DESCRIBE; }
}  // namespace xfer
