#pragma once
// Checking CUDA runtime calls (internal to the CUDA code: includes the runtime's header). Every
// failure becomes a std::runtime_error that names the call, the device and the worker. The
// success path does no work beyond the comparison, so these are safe in the timed copy. CUPTI's
// calls are the harness's (backend/cuda/cupti_check.hpp): the engine links no CUPTI.
#include <cuda_runtime_api.h>

namespace xfer::cuda {

[[noreturn]] void throw_cuda_error(cudaError_t err, const char* call, int device, int worker);

inline void check_cuda(cudaError_t err, const char* call, int device, int worker) {
    if (err != cudaSuccess) throw_cuda_error(err, call, device, worker);
}

}  // namespace xfer::cuda

// XFER_CUDA(device, worker, cudaMemcpy(...)): device/worker only label the message (-1: none).
#define XFER_CUDA(device, worker, expr) ::xfer::cuda::check_cuda((expr), #expr, (device), (worker))
