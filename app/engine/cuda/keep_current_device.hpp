#pragma once
// The calling thread's current CUDA device, restored when this goes out of scope: for calls
// made on a thread whose binding is its owner's (a Python caller's, a payload's), not ours.
#include <cuda_runtime_api.h>

namespace xfer::cuda {

class KeepCurrentDevice {
  public:
    KeepCurrentDevice() {
        if (cudaGetDevice(&device_) != cudaSuccess) {
            (void)cudaGetLastError();
            device_ = -1;
        }
    }
    ~KeepCurrentDevice() {
        if (device_ >= 0) (void)cudaSetDevice(device_);
    }
    KeepCurrentDevice(const KeepCurrentDevice&) = delete;
    KeepCurrentDevice& operator=(const KeepCurrentDevice&) = delete;

  private:
    int device_ = -1;
};

}  // namespace xfer::cuda
