#include "backend/cuda/worker_context.hpp"

#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

namespace xfer::cuda {
namespace {

// The driver API through the runtime's entry points rather than linking libcuda: xferlab and
// its tests must start on machines without a driver (CI), where libcuda.so.1 does not exist.
// Each function is asked for at the version of the headers it was compiled against, so its
// signature is the one cuda.h declares (cuCtxCreate: CUDA 13's, with a params argument).
struct Driver {
    decltype(&::cuInit) init = nullptr;
    decltype(&::cuDeviceGet) device_get = nullptr;
    decltype(&::cuCtxCreate) ctx_create = nullptr;
    decltype(&::cuCtxDestroy) ctx_destroy = nullptr;
    decltype(&::cuCtxPopCurrent) ctx_pop = nullptr;
    decltype(&::cuCtxSetCurrent) ctx_set = nullptr;
    decltype(&::cuCtxGetCurrent) ctx_get = nullptr;
    decltype(&::cuGetErrorName) error_name = nullptr;
    decltype(&::cuGetErrorString) error_string = nullptr;
};

template <typename F>
void load(F& fn, const char* name) {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult found{};
    const cudaError_t err =
        cudaGetDriverEntryPointByVersion(name, &p, CUDA_VERSION, cudaEnableDefault, &found);
    if (err != cudaSuccess || found != cudaDriverEntryPointSuccess || !p) {
        (void)cudaGetLastError();
        throw std::runtime_error(std::string("cudaGetDriverEntryPointByVersion(") + name +
                                 ") failed: the driver does not provide it (" +
                                 cudaGetErrorString(err) + ")");
    }
    fn = reinterpret_cast<F>(p);
}

const Driver& driver() {
    static const Driver d = [] {
        Driver x;
        load(x.init, "cuInit");
        load(x.device_get, "cuDeviceGet");
        load(x.ctx_create, "cuCtxCreate");
        load(x.ctx_destroy, "cuCtxDestroy");
        load(x.ctx_pop, "cuCtxPopCurrent");
        load(x.ctx_set, "cuCtxSetCurrent");
        load(x.ctx_get, "cuCtxGetCurrent");
        load(x.error_name, "cuGetErrorName");
        load(x.error_string, "cuGetErrorString");
        return x;
    }();
    return d;
}

void check(CUresult res, const char* call, int device, int worker) {
    if (res != CUDA_SUCCESS) throw_driver_error(res, call, device, worker);
}

}  // namespace

void throw_driver_error(CUresult res, const char* call, int device, int worker) {
    const char* name = nullptr;
    const char* text = nullptr;
    if (driver().error_name(res, &name) != CUDA_SUCCESS || !name) name = "CUDA_ERROR_?";
    if (driver().error_string(res, &text) != CUDA_SUCCESS || !text) text = name;
    std::string out = std::string(call) + " failed on device " + std::to_string(device);
    out += worker >= 0 ? " (worker " + std::to_string(worker) + ")" : " (main thread)";
    out += std::string(": ") + text + " (" + name + ")";
    throw std::runtime_error(out);
}

WorkerContext::WorkerContext(int device, int worker) : device_(device), worker_(worker) {
    // The runtime initialised the driver already; cuInit is cheap and makes that explicit.
    check(driver().init(0), "cuInit", device, worker);
    CUdevice dev = 0;
    check(driver().device_get(&dev, device), "cuDeviceGet", device, worker);
    // CUDA 13: cuCtxCreate(ctx, params, flags, dev); no params: a plain context with the
    // default scheduling (CU_CTX_SCHED_AUTO), as the primary context has.
    check(driver().ctx_create(&ctx_, nullptr, 0, dev), "cuCtxCreate", device, worker);
    // cuCtxCreate pushed the new context on this thread; give the thread its own back.
    CUcontext popped = nullptr;
    const CUresult res = driver().ctx_pop(&popped);
    if (res != CUDA_SUCCESS) {
        (void)driver().ctx_destroy(ctx_);
        throw_driver_error(res, "cuCtxPopCurrent", device, worker);
    }
}

WorkerContext::~WorkerContext() {
    if (ctx_) (void)driver().ctx_destroy(ctx_);
}

void WorkerContext::make_current() const {
    check(driver().ctx_set(ctx_), "cuCtxSetCurrent", device_, worker_);
}

ContextScope::ContextScope(const WorkerContext* ctx) : ctx_(ctx) {
    if (!ctx_) return;
    check(driver().ctx_get(&previous_), "cuCtxGetCurrent", ctx_->device_, ctx_->worker_);
    check(driver().ctx_set(ctx_->ctx_), "cuCtxSetCurrent", ctx_->device_, ctx_->worker_);
}

ContextScope::~ContextScope() {
    if (ctx_) (void)driver().ctx_set(previous_);
}

}  // namespace xfer::cuda
