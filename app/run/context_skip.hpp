#pragma once
// transfer.context = "per-worker" where there is no CUDA backend.
#include <string>

#include "backend/backend.hpp"
#include "scenario/scenario.hpp"

namespace xfer {

// Why a run is skipped rather than run: it asks for per-worker CUDA contexts and runs on the
// host backend, which has none. Skipped (as an mpi run outside mpirun is) rather than refused,
// so that a scenario comparing contexts still runs its other runs on a machine without a GPU,
// CI included; HostBackend::check refuses the setting for any caller that gets past this.
// "" when the run goes ahead.
std::string context_skip_reason(const Run& run, const Backend& backend);

}  // namespace xfer
