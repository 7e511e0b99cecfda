#pragma once
// Checking CUDA runtime and CUPTI calls (internal to backend/cuda: includes the CUDA headers).
// Every failure becomes a std::runtime_error that names the call, the device and the worker.
// The success path does no work beyond the comparison, so these are safe in the timed copy.
#include <cuda_runtime_api.h>
#include <cupti.h>

namespace xfer::cuda {

[[noreturn]] void throw_cuda_error(cudaError_t err, const char* call, int device, int worker);
[[noreturn]] void throw_cupti_error(CUptiResult res, const char* call);

inline void check_cuda(cudaError_t err, const char* call, int device, int worker) {
    if (err != cudaSuccess) throw_cuda_error(err, call, device, worker);
}
inline void check_cupti(CUptiResult res, const char* call) {
    if (res != CUPTI_SUCCESS) throw_cupti_error(res, call);
}

}  // namespace xfer::cuda

// XFER_CUDA(device, worker, cudaMemcpy(...)): device/worker only label the message (-1: none).
#define XFER_CUDA(device, worker, expr) ::xfer::cuda::check_cuda((expr), #expr, (device), (worker))
#define XFER_CUPTI(expr) ::xfer::cuda::check_cupti((expr), #expr)
