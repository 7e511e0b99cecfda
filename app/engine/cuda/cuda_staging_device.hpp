#pragma once
// The CUDA side of the staging engine: page-locked buffers (cudaMallocHost), non-blocking
// streams (one per helper, or one for the engine: staging.streams) and one event per buffer;
// and the facts about a device that resolve() needs. No CUDA header here.
#include <memory>

#include "engine/engine_resolve.hpp"
#include "engine/staging_device.hpp"

namespace xfer::cuda {

// Allocates the buffers of staging_layout(r.config) on the resolved device, its streams and
// events. Runs on the caller's thread, never timed. Throws naming the device and the bytes asked.
std::unique_ptr<StagingDevice> make_cuda_staging_device(const ResolvedEngine& r);

// The device's PCIe link, one thread's memcpy rate into page-locked memory (measured once per
// process), the CPUs near it that this process may use, and whether it reads pageable memory
// through the host's page tables.
DeviceFacts cuda_device_facts(int device);

}  // namespace xfer::cuda
