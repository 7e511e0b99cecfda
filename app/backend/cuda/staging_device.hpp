#pragma once
// The CUDA side of the staging engine (transfer.path = "staged"): page-locked chunk buffers,
// non-blocking streams (one per helper thread, or one for all: [staging] streams) and one event
// per buffer. Internal to backend/cuda.
#include <cstdint>
#include <memory>
#include <string>

#include "backend/staging_engine.hpp"
#include "backend/staging_registry.hpp"
#include "scenario/scenario.hpp"

namespace xfer::cuda {

// The resolved configuration of a device's engine for `t`, and why (for the run's notes):
// threads = "auto" becomes auto_helper_count (backend/auto_helpers.hpp) of the device's link and
// one memcpy thread's measured rate, at most the CPUs local to the device and at most
// kMaxAutoStagingThreads (12: 16 helpers were no faster there);
// chunk = "auto" becomes default_staging_chunk (by direction), at most the copy.
// Every engine registers in the machine's engine registry (backend/staging_registry.hpp): an
// "auto" engine starts that many helpers (with their buffers) but lets only its share of the
// CPUs it has in common with the other live engines take work (config.active_helpers, asked
// at every request); an explicit staging.threads = N registers N fixed helpers.
struct ResolvedStaging {
    StagingConfig config;
    StagingStreams streams = StagingStreams::per_helper;
    StagingWait wait = StagingWait::spin;
    std::string note;
    // The engine's slot in the registry: held as long as any copy of it (config.active_helpers
    // holds one for "auto"). describe() gives the share for the run's notes.
    std::shared_ptr<EngineRegistration> registration;
};
ResolvedStaging resolve_staging(const TransferSpec& t, int device);
// The same for a copy of `bytes` in `direction` (chunk = "auto" depends on both) without a whole
// TransferSpec (the Python module's engines).
ResolvedStaging resolve_staging(const StagingSpec& s, Direction direction, uint64_t bytes,
                                int device);

// Allocates threads x buffers page-locked chunks (cudaMallocHost) on the resolved device, its
// streams and events. Runs on the main thread, never timed. Throws naming the device and the
// bytes asked.
std::unique_ptr<StagingDevice> make_cuda_staging_device(const ResolvedStaging& r);

constexpr int kMaxAutoStagingThreads = 12;

}  // namespace xfer::cuda
