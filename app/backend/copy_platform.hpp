#pragma once
// What the Python module's copies run on (app/pyapi): where a pointer lives, a plain synchronous
// copy for page-locked or small buffers, a stream to wait for, and staging engines. The CUDA one
// (backend/cuda/cuda_copy_platform.cpp) and a fake for the tests (fake_copy_platform.cpp),
// whose "device memory" is host memory registered with it and whose engines run on
// HostStagingDevice: the same engine code either way. No CUDA header here.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backend/staging_engine.hpp"
#include "backend/staging_registry.hpp"

namespace xfer {

struct PointerPlace {
    enum class Kind { pageable, page_locked, device } kind = Kind::pageable;
    int device = -1;  // Kind::device: its device
};

// Engine(dma="auto"): EngineRequest::dma's default.
constexpr uint64_t kEngineDmaAuto = ~uint64_t(0);
// The module's auto DMA: this many chunks, filled (or emptied) by the helpers together.
constexpr uint64_t kEngineChunksPerDma = 8;
// Engine(buffers="auto") with shared DMAs: chunks per helper, half a DMA's worth, so that the
// page-locked memory holds two DMAs per four helpers (48 MiB with 12 helpers, 1 MiB chunks).
constexpr int kEngineAutoBuffersShared = int(kEngineChunksPerDma / 2);
// Engine(buffers="auto") with a DMA per chunk.
constexpr int kEngineAutoBuffers = 2;

// An engine as the module's Engine(...) asks for it.
struct EngineRequest {
    int device = 0;
    int threads = 0;     // 0: auto
    uint64_t chunk = 0;  // 0: auto (engine_chunks)
    int buffers = 0;     // 0: auto (engine_chunks)
    // Bytes per DMA filled by the helpers together; 0: one chunk per DMA; kEngineDmaAuto:
    // kEngineChunksPerDma chunks.
    uint64_t dma = kEngineDmaAuto;
    // nullopt: the CPUs local to the device (those this process may use); empty: not pinned.
    std::optional<std::vector<int>> cpus;
    bool taper = false;     // StagingConfig::taper
    bool ramp = false;      // StagingConfig::ramp
    int64_t linger_ns = 0;  // StagingConfig::linger_ns
};

// What a request's "auto" settings become on a platform whose auto chunk is `auto_piece` with
// shared DMAs and `auto_to_device` / `auto_from_device` with a DMA per chunk.
struct EngineChunks {
    uint64_t to_device = 0;
    uint64_t from_device = 0;
    uint64_t dma = 0;  // StagingConfig::dma_chunk (no larger than a chunk: a DMA per chunk)
    int buffers = 0;   // StagingConfig::buffers
};
EngineChunks engine_chunks(const EngineRequest& r, uint64_t auto_piece, uint64_t auto_to_device,
                           uint64_t auto_from_device);

struct MadeEngine {
    std::unique_ptr<StagingEngine> engine;  // started
    std::string note;                       // how threads and chunk were resolved, and why
    // The engine's slot in the machine's engine registry (backend/staging_registry.hpp); nullptr
    // when the engine takes no part in it (the fake, unless a test gives it a registry).
    std::shared_ptr<EngineRegistration> registration;
};

class CopyPlatform {
  public:
    virtual ~CopyPlatform() = default;
    virtual std::string name() const = 0;  // "cuda", "fake"
    // Why no device answers ("" when one does).
    virtual std::string unavailable() = 0;
    virtual int device_count() = 0;
    // Where [p, p + bytes) lives: both ends must agree to count as page-locked.
    virtual PointerPlace place(const void* p, uint64_t bytes) = 0;
    // A synchronous copy to (`to_device`) or from `device`, queued on `stream` (0: the calling
    // thread's default stream) and waited for. Throws std::runtime_error with the device's
    // message.
    virtual void copy(void* dst, const void* src, uint64_t bytes, bool to_device, int device,
                      uintptr_t stream) = 0;
    // Returns once the work queued on `stream` so far has finished.
    virtual void wait_stream(uintptr_t stream, int device) = 0;
    virtual MadeEngine make_engine(const EngineRequest& request) = 0;
};

// The CUDA platform; nullptr when xferlab was built without the CUDA backend.
CopyPlatform* cuda_copy_platform();
CopyPlatform& fake_copy_platform();

// The fake's memory map: [p, p + bytes) as memory of `device` (>= 0), or page-locked host
// memory (device -1 with page_locked); unregistered host memory is pageable.
void fake_register(const void* p, uint64_t bytes, int device, bool page_locked = false);
void fake_unregister(const void* p);
// Engines the fake makes from now on fail the DMA that touches `device_byte` (nullptr: none).
void fake_fail_dma_at(const void* device_byte);
// Engines the fake makes from now on join the engine registry at `path` (a test's own file), as
// CUDA engines join the machine's: "auto" ones share, fixed ones count; empty: none (default).
void fake_use_engine_registry(const std::string& path);
// Streams the fake waited for, in order (the tests check that a stream is waited for first).
std::vector<uintptr_t> fake_waited_streams();

}  // namespace xfer
