#pragma once
#include "launch/launcher.hpp"

namespace xfer {

// Adds the launchers implemented in C++ in this module: host (pthreads) and openmp.
void register_native_launchers(LauncherRegistry& registry);

}  // namespace xfer
