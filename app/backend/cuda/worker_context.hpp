#pragma once
// transfer.context = "per-worker": a CUDA context of the worker's own on its device, created
// with the driver API (cuCtxCreate), instead of the device's primary context that every thread
// of the process shares. Internal to backend/cuda.
#include <cuda.h>

namespace xfer::cuda {

class WorkerContext {
  public:
    // Creates the context and leaves the calling thread's current context as it was. Throws
    // std::runtime_error naming the call, the device and the worker.
    WorkerContext(int device, int worker);
    ~WorkerContext();  // cuCtxDestroy; never current anywhere by then (see CudaTransfer)
    WorkerContext(const WorkerContext&) = delete;
    WorkerContext& operator=(const WorkerContext&) = delete;

    // Binds the calling thread to this context for good (the worker's own thread).
    void make_current() const;
    int device() const { return device_; }

  private:
    friend class ContextScope;
    CUcontext ctx_ = nullptr;
    int device_;
    int worker_;
};

// This context current for a scope on a thread that is not the worker's (the main thread's
// allocation, poisoning, verification, freeing); the thread's previous context afterwards.
// A null context does nothing.
class ContextScope {
  public:
    explicit ContextScope(const WorkerContext* ctx);
    ~ContextScope();
    ContextScope(const ContextScope&) = delete;
    ContextScope& operator=(const ContextScope&) = delete;

  private:
    const WorkerContext* ctx_;
    CUcontext previous_ = nullptr;
};

// "cuCtxCreate failed on device 0 (worker 2): <description> (CUDA_ERROR_...)".
[[noreturn]] void throw_driver_error(CUresult res, const char* call, int device, int worker);

}  // namespace xfer::cuda
