#pragma once
// One worker's buffers and copy on the CUDA backend. Internal to backend/cuda.
//
// Which thread does what:
//   main thread, constructor (Backend::prepare): cudaSetDevice(device); cudaMalloc of device
//     buffers; host buffers allocated; device sources filled with the pattern; with
//     first_touch = "main" the host source is filled with the pattern and the host destination
//     written (poison), both by the main thread; registered memory is pinned here unless
//     first_touch = "worker".
//   main thread, poison_destination(): device destinations memset; host destinations only where
//     writing them does not move the first touch away from the policy (see there).
//   worker thread, attach_thread(): cudaSetDevice(device); the stream; the events; with
//     first_touch = "worker" the host source filled and the host destination written, then
//     registered memory pinned, all by the worker thread.
//   worker thread, copy(): the copy and nothing else (no allocation, no logging, no flushing).
//     With path = "staged" the copy is one request to the device's staging engine (its helper
//     threads move the bytes; the worker waits). With path = "register" the pageable host
//     buffer was registered where pinned memory would have been (timed apart, see
//     RegisterCosts) and is unregistered in the destructor.
//   main thread, verify() and the destructor.
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "backend/backend.hpp"
#include "engine/staging_engine.hpp"
#include "memory/host_buffer.hpp"

namespace xfer::cuda {

// What transfer.path = "register" cost: one cudaHostRegister per worker buffer, before the
// timed copies (the run's notes report it apart from them).
struct RegisterCosts {
    std::mutex mutex;
    std::vector<int64_t> ns;  // one per registered buffer
    uint64_t bytes = 0;       // per buffer
    void add(int64_t took, uint64_t buffer_bytes) {
        std::lock_guard lock(mutex);
        ns.push_back(took);
        bytes = buffer_bytes;
    }
};

struct TransferPlan {
    TransferSpec spec;
    int worker = 0;
    int device = 0;       // the worker's device: the source device for p2p
    int peer = -1;        // p2p: the destination device
    bool cupti = false;   // record the correlation id of each copy (CUPTI tracing is on)
    bool events = false;  // CUDA events around each async copy
    std::shared_ptr<StagingEngine> staging;   // path = "staged": the device's engine
    RegisterCosts* register_costs = nullptr;  // path = "register": where its cost goes
};

std::unique_ptr<WorkerTransfer> make_cuda_transfer(const TransferPlan& plan);

}  // namespace xfer::cuda
