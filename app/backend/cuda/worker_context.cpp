#include "backend/cuda/worker_context.hpp"

#include <stdexcept>
#include <string>

namespace xfer::cuda {
namespace {

void check(CUresult res, const char* call, int device, int worker) {
    if (res != CUDA_SUCCESS) throw_driver_error(res, call, device, worker);
}

}  // namespace

void throw_driver_error(CUresult res, const char* call, int device, int worker) {
    const char* name = nullptr;
    const char* text = nullptr;
    if (cuGetErrorName(res, &name) != CUDA_SUCCESS || !name) name = "CUDA_ERROR_?";
    if (cuGetErrorString(res, &text) != CUDA_SUCCESS || !text) text = name;
    std::string out = std::string(call) + " failed on device " + std::to_string(device);
    out += worker >= 0 ? " (worker " + std::to_string(worker) + ")" : " (main thread)";
    out += std::string(": ") + text + " (" + name + ")";
    throw std::runtime_error(out);
}

WorkerContext::WorkerContext(int device, int worker) : device_(device), worker_(worker) {
    // The runtime initialised the driver already; cuInit is cheap and makes that explicit.
    check(cuInit(0), "cuInit", device, worker);
    CUdevice dev = 0;
    check(cuDeviceGet(&dev, device), "cuDeviceGet", device, worker);
    // CUDA 13: cuCtxCreate(ctx, params, flags, dev); no params: a plain context with the
    // default scheduling (CU_CTX_SCHED_AUTO), as the primary context has.
    check(cuCtxCreate(&ctx_, nullptr, 0, dev), "cuCtxCreate", device, worker);
    // cuCtxCreate pushed the new context on this thread; give the thread its own back.
    CUcontext popped = nullptr;
    const CUresult res = cuCtxPopCurrent(&popped);
    if (res != CUDA_SUCCESS) {
        (void)cuCtxDestroy(ctx_);
        throw_driver_error(res, "cuCtxPopCurrent", device, worker);
    }
}

WorkerContext::~WorkerContext() {
    if (ctx_) (void)cuCtxDestroy(ctx_);
}

void WorkerContext::make_current() const {
    check(cuCtxSetCurrent(ctx_), "cuCtxSetCurrent", device_, worker_);
}

ContextScope::ContextScope(const WorkerContext* ctx) : ctx_(ctx) {
    if (!ctx_) return;
    check(cuCtxGetCurrent(&previous_), "cuCtxGetCurrent", ctx_->device_, ctx_->worker_);
    check(cuCtxSetCurrent(ctx_->ctx_), "cuCtxSetCurrent", ctx_->device_, ctx_->worker_);
}

ContextScope::~ContextScope() {
    if (ctx_) (void)cuCtxSetCurrent(previous_);
}

}  // namespace xfer::cuda
