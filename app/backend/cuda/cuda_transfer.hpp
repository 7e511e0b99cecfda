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
//   main thread, verify() and the destructor.
#include <cstdint>
#include <memory>

#include "backend/backend.hpp"
#include "memory/host_buffer.hpp"

namespace xfer::cuda {

struct TransferPlan {
    TransferSpec spec;
    int worker = 0;
    int device = 0;       // the worker's device: the source device for p2p
    int peer = -1;        // p2p: the destination device
    bool cupti = false;   // record the correlation id of each copy (CUPTI tracing is on)
    bool events = false;  // CUDA events around each async copy
};

std::unique_ptr<WorkerTransfer> make_cuda_transfer(const TransferPlan& plan);

}  // namespace xfer::cuda
