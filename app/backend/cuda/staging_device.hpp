#pragma once
// The CUDA side of the staging engine (transfer.path = "staged"): page-locked chunk buffers,
// non-blocking streams (one per helper thread, or one for all: [staging] streams) and one event
// per buffer. Internal to backend/cuda.
#include <cstdint>
#include <memory>
#include <string>

#include "backend/staging_engine.hpp"
#include "scenario/scenario.hpp"

namespace xfer::cuda {

// The resolved configuration of a device's engine for `t`, and why (for the run's notes):
// threads = "auto" becomes enough helpers to feed the device's link at 1.5x one memcpy thread's
// measured rate each (helpers copying together share the memory bandwidth: on the H200 host 8
// helpers moved 6 GB/s each against 8.3 alone), at most the CPUs local to the device and at
// most kMaxAutoStagingThreads (12: 16 helpers were no faster there);
// chunk = "auto" becomes default_staging_chunk (by direction), at most the copy.
struct ResolvedStaging {
    StagingConfig config;
    StagingStreams streams = StagingStreams::per_helper;
    StagingWait wait = StagingWait::spin;
    std::string note;
};
ResolvedStaging resolve_staging(const TransferSpec& t, int device);

// Allocates threads x buffers page-locked chunks (cudaMallocHost) on the resolved device, its
// streams and events. Runs on the main thread, never timed. Throws naming the device and the
// bytes asked.
std::unique_ptr<StagingDevice> make_cuda_staging_device(const ResolvedStaging& r);

constexpr int kMaxAutoStagingThreads = 12;

}  // namespace xfer::cuda
