#pragma once
// What the native launchers share: CPUs per worker, and recording a worker's failure so that
// the others are not left waiting at the gate. Internal to launch/.
#include <mutex>
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

// Appends "worker <i>: <what>" to ctx.errors under `mutex` and aborts the start gate.
void record_worker_failure(RunContext& ctx, std::mutex& mutex, int worker, const std::string& what);

}  // namespace xfer::detail
