#pragma once
#include <string>

namespace xfer {

// This machine's name (gethostname), read once.
const std::string& this_hostname();

}  // namespace xfer
