#pragma once

#include "cli/common_options.hpp"

namespace xfer {

// `xferlab devices`: backends, devices, topology, and why one is unavailable.
int cmd_devices(const CommonOptions& common, bool json);

}  // namespace xfer
