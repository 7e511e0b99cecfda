#pragma once
// Whether a CUDA device answers here, and if not, why, in words a user can act on (no driver,
// no device, a driver older than the runtime). The engine's CUDA platform and the harness's
// CUDA backend both ask it. No CUDA header here.
#include <string>

namespace xfer::cuda {

struct CudaAvailability {
    bool available = false;
    std::string reason;  // why not, when unavailable; the devices' summary when available
};

// Probed once per process.
CudaAvailability cuda_availability();

}  // namespace xfer::cuda
