#pragma once
// The CPUs each worker of a run is pinned to, as the native launchers apply them. Internal to
// launch/.
#include <string>
#include <vector>

#include "launch/launcher.hpp"

namespace xfer::detail {

// The CPU set each worker is to be pinned to (empty: leave it). Computed on the launching
// thread before any worker starts, so that no worker reads a CPU set another is changing.
// gpu-local takes the device's CPUs from the backend's describe() ("devices"[d]["local_cpus"])
// and adds a note to `notes` when they are unknown.
std::vector<std::vector<int>> worker_affinities(const RunContext& ctx,
                                                std::vector<std::string>& notes);

}  // namespace xfer::detail
