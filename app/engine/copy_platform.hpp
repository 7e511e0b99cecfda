#pragma once
// What the Python module's copies run on (app/module), and what makes every engine: where a
// pointer lives, a plain synchronous copy for page-locked or small buffers, a stream to wait
// for, a device's facts and its page-locked buffers and DMA. The CUDA platform
// (engine/cuda/cuda_copy_platform.cpp) and the tests' fake (engine/fake/), whose "device memory"
// is host memory: make_engine() builds an engine the same way on either. No CUDA header here.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "engine/engine_probe.hpp"
#include "engine/engine_resolve.hpp"
#include "engine/staging_device.hpp"
#include "engine/staging_engine.hpp"
#include "engine/staging_registry.hpp"
#include "settings/engine_options.hpp"

namespace xfer {

struct PointerPlace {
    enum class Kind { pageable, page_locked, device } kind = Kind::pageable;
    int device = -1;  // Kind::device: its device
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
    // What resolve() needs to know of `device` (measured once per device and process).
    virtual DeviceFacts facts(int device) = 0;
    // The page-locked buffers and the DMA of an engine resolved as `r`. Never timed.
    virtual std::unique_ptr<StagingDevice> make_device(const ResolvedEngine& r) = 0;
    // The engine registry the platform's engines join (engine/staging_registry.hpp): "" the
    // machine's; nullopt: none (the fake, unless a test names a file).
    virtual std::optional<std::string> registry() { return std::string(); }
};

struct MadeEngine {
    std::unique_ptr<StagingEngine> engine;  // not started yet
    ResolvedEngine resolved;                // its settings, and the note that explains them
    // Its slot in the engine registry; nullptr when it takes no part in one. Held as long as
    // the engine's active_helpers hook holds it too.
    std::shared_ptr<EngineRegistration> registration;
};

// The probe an engine of `helpers` helper threads gets; nullptr: none.
using ProbeMaker = std::function<std::shared_ptr<EngineProbe>(int helpers)>;

// An engine on `device` as `options` ask: the platform's facts, resolve(), the registry, the
// page-locked buffers, and `make_probe`'s probe (its device then in a MeasuredStagingDevice;
// without a probe, none). Throws std::runtime_error (buffers that cannot be allocated, ...).
MadeEngine make_engine(CopyPlatform& platform, const EngineOptions& options, int device,
                       const ProbeMaker& make_probe = {});

// The CUDA platform; nullptr when xferlab was built without the CUDA toolkit.
CopyPlatform* cuda_copy_platform();

}  // namespace xfer
