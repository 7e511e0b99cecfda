// The CUDA copy platform of the Python module (backend/copy_platform.hpp): pointer attributes,
// a synchronous copy on the caller's stream, and staging engines resolved as a scenario's
// [staging] would be. Every call leaves the calling thread's current device as it found it:
// the module runs inside the user's program, whose CuPy or PyTorch chose that device.
#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <stdexcept>

#include "backend/copy_platform.hpp"
#include "backend/cuda/cuda_backend.hpp"
#include "backend/cuda/cuda_check.hpp"
#include "backend/cuda/staging_device.hpp"
#include "backend/cuda/topology.hpp"
#include "scenario/scenario.hpp"
#include "system/cpu_topology.hpp"

namespace xfer {

namespace {

// Engine(chunk="auto") with shared DMAs (the module's default): eight to a DMA of 8 MiB,
// measured on H200 with one and four callers, docs/results/h200-module.md (passes 8 and 11).
constexpr uint64_t kEnginePiece = uint64_t(1) << 20;

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

// Both ends of one vector of CPUs: the device's local CPUs that this process may use.
std::vector<int> usable_local_cpus(int device) {
    const std::vector<int> local = cuda::local_cpus(device), allowed = allowed_cpus();
    std::vector<int> out;
    for (int cpu : local)
        for (int a : allowed)
            if (a == cpu) out.push_back(cpu);
    return out;
}

class CudaCopyPlatform final : public CopyPlatform {
  public:
    std::string name() const override { return "cuda"; }

    std::string unavailable() override {
        const BackendAvailability a = cuda::availability();
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

    MadeEngine make_engine(const EngineRequest& r) override {
        KeepCurrentDevice keep;
        // As a scenario's [staging] table would say it: one engine for both directions.
        constexpr uint64_t kLarge = uint64_t(1) << 30;  // a size at which auto picks its chunk
        const EngineChunks chunks =
            engine_chunks(r, kEnginePiece, default_staging_chunk(Direction::h2d, kLarge),
                          default_staging_chunk(Direction::d2h, kLarge));
        TransferSpec t;
        t.direction = Direction::h2d;
        t.bytes = kLarge;
        t.staging.threads = r.threads;
        t.staging.chunk = chunks.to_device;
        t.staging.buffers = chunks.buffers;
        t.staging.dma = chunks.dma;
        t.staging.taper = r.taper;
        t.staging.affinity = r.cpus ? StagingAffinity::none : StagingAffinity::gpu_local;
        cuda::ResolvedStaging resolved = cuda::resolve_staging(t, r.device);
        StagingConfig& c = resolved.config;
        c.chunk_from_device = chunks.from_device;
        c.linger_ns = r.linger_ns;
        c.ramp = r.ramp;
        c.cpus = r.cpus ? *r.cpus : usable_local_cpus(r.device);
        MadeEngine out;
        out.engine = std::make_unique<StagingEngine>(c, cuda::make_cuda_staging_device(resolved));
        out.engine->start();
        out.registration = resolved.registration;
        out.note = c.chunk_from_device == c.chunk
                       ? resolved.note
                       : resolved.note + fmt::format("; from the device in chunks of {} KiB",
                                                     c.chunk_from_device >> 10);
        if (c.ramp && staging_shares_buffers(c))
            out.note += "; a copy's first and last DMAs shorter, each cut over the helpers (ramp)";
        return out;
    }
};

}  // namespace

CopyPlatform* cuda_copy_platform() {
    static CudaCopyPlatform platform;
    return &platform;
}

}  // namespace xfer
