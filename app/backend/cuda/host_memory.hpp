#pragma once
// Host memory of every kind the CUDA backend copies from or to. Pageable, hugepage and numa:<n>
// come from memory/ (HostBuffer::allocate); page-locked kinds are allocated here and handed to a
// HostBuffer with the matching release function. Internal to backend/cuda.
#include <cstdint>

#include "memory/host_buffer.hpp"
#include "settings/specs.hpp"

namespace xfer::cuda {

// pinned: cudaMallocHost (page-locked and placed by the driver when allocated, by the calling
// thread). write-combined: cudaHostAlloc(cudaHostAllocWriteCombined), likewise. registered:
// page-aligned malloc memory, NOT yet registered: register_host_memory() pins it later, so that
// the first-touch policy can decide which thread faults the pages in before they are pinned.
// `device`/`worker` label errors.
HostBuffer allocate_host_memory(const HostMemory& kind, uint64_t bytes, int device, int worker);

// cudaHostRegister(cudaHostRegisterPortable) of a `registered` buffer. Pinning faults in every
// page that is not yet resident: the calling thread touches them.
void register_host_memory(const HostBuffer& buffer, int device, int worker);


}  // namespace xfer::cuda
