#include "util/version.hpp"

namespace xfer {
std::string tool_version() { return XFER_VERSION; }
std::string git_describe() { return XFER_GIT_DESCRIBE; }
}  // namespace xfer
