#pragma once

#include "cli/common_options.hpp"

namespace xfer {

struct DevicesOptions {
    CommonOptions common;
    bool json = false;  // --json
};

CLI::App* add_devices_command(CLI::App& app, DevicesOptions& options);

// `xferlab devices`: backends, devices, topology, and why one is unavailable.
int cmd_devices(const DevicesOptions& options);

}  // namespace xfer
