// The CUDA copy platform (engine/copy_platform.hpp): pointer attributes, a synchronous copy on
// the caller's stream, a device's facts and its staging buffers; the Python module's engines and
// the harness's staged runs are both made on it. Every call leaves the calling thread's current
// device as it found it: the module runs inside the user's program, whose CuPy or PyTorch chose
// that device.
#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <map>
#include <mutex>
#include <stdexcept>

#include "engine/copy_platform.hpp"
#include "engine/cuda/cuda_availability.hpp"
#include "engine/cuda/cuda_check.hpp"
#include "engine/cuda/cuda_staging_device.hpp"

namespace xfer {

namespace {

// The calling thread's current device, restored when this goes out of scope.
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

// A stream handle as the frameworks give it: 1 and 2 are DLPack's and the CUDA array
// interface's names of the legacy and the per-thread default stream.
cudaStream_t stream_of(uintptr_t handle) {
    if (handle == 0 || handle == 2) return cudaStreamPerThread;
    if (handle == 1) return cudaStreamLegacy;
    return reinterpret_cast<cudaStream_t>(handle);
}

PointerPlace place_of(const cudaPointerAttributes& a) {
    PointerPlace out;
    switch (a.type) {
        case cudaMemoryTypeHost:
            out.kind = PointerPlace::Kind::page_locked;
            break;
        case cudaMemoryTypeDevice:
        case cudaMemoryTypeManaged:
            out.kind = PointerPlace::Kind::device;
            out.device = a.device;
            break;
        default:
            break;
    }
    return out;
}

class CudaCopyPlatform final : public CopyPlatform {
  public:
    std::string name() const override { return "cuda"; }

    std::string unavailable() override {
        const cuda::CudaAvailability a = cuda::cuda_availability();
        return a.available ? "" : a.reason;
    }

    int device_count() override {
        int n = 0;
        if (cudaGetDeviceCount(&n) != cudaSuccess) {
            (void)cudaGetLastError();
            return 0;
        }
        return n;
    }

    PointerPlace place(const void* p, uint64_t bytes) override {
        KeepCurrentDevice keep;
        cudaPointerAttributes first{}, last{};
        if (cudaPointerGetAttributes(&first, p) != cudaSuccess) {
            (void)cudaGetLastError();
            return {};
        }
        const PointerPlace a = place_of(first);
        if (bytes <= 1 || a.kind == PointerPlace::Kind::pageable) return a;
        // A buffer only partly inside a registered or allocated range is not all of one kind.
        const auto* end = static_cast<const std::byte*>(p) + bytes - 1;
        if (cudaPointerGetAttributes(&last, end) != cudaSuccess) {
            (void)cudaGetLastError();
            return {};
        }
        const PointerPlace b = place_of(last);
        if (b.kind != a.kind || b.device != a.device) return {};
        return a;
    }

    void copy(void* dst, const void* src, uint64_t bytes, bool to_device, int device,
              uintptr_t stream) override {
        KeepCurrentDevice keep;
        XFER_CUDA(device, -1, cudaSetDevice(device));
        const cudaStream_t s = stream_of(stream);
        XFER_CUDA(device, -1,
                  cudaMemcpyAsync(dst, src, bytes,
                                  to_device ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost, s));
        XFER_CUDA(device, -1, cudaStreamSynchronize(s));
    }

    void wait_stream(uintptr_t stream, int device) override {
        KeepCurrentDevice keep;
        XFER_CUDA(device, -1, cudaSetDevice(device));
        XFER_CUDA(device, -1, cudaStreamSynchronize(stream_of(stream)));
    }

    DeviceFacts facts(int device) override {
        // Read once per device: the memcpy probe alone takes a few hundred milliseconds.
        std::lock_guard lock(facts_mutex_);
        if (auto it = facts_.find(device); it != facts_.end()) return it->second;
        KeepCurrentDevice keep;
        XFER_CUDA(device, -1, cudaSetDevice(device));
        return facts_[device] = cuda::cuda_device_facts(device);
    }

    std::unique_ptr<StagingDevice> make_device(const ResolvedEngine& r) override {
        KeepCurrentDevice keep;
        return cuda::make_cuda_staging_device(r);
    }

  private:
    std::mutex facts_mutex_;
    std::map<int, DeviceFacts> facts_;
};

}  // namespace

CopyPlatform* cuda_copy_platform() {
    static CudaCopyPlatform platform;
    return &platform;
}

}  // namespace xfer
