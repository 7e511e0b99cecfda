#pragma once
// One staging engine as the Python module holds it (xferlab.Engine, or the shared engine of a
// device that xferlab.copy uses): made on a platform (CUDA, or the tests' fake), used by any
// number of threads at once, closed once. Copies run with the GIL released; nothing here
// touches Python.
#include <sys/types.h>

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>

#include "backend/copy_platform.hpp"

namespace xfer::pyapi {

// A failure of the device or the engine, or a use the engine cannot serve (closed, forked):
// xferlab.Error in Python (a RuntimeError).
struct EngineError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Below this many bytes a copy is one plain copy on the caller's stream instead of a staged
// request: a request of one or two chunks is copied by one helper and then DMA'd, one after the
// other, and takes longer than the driver's own copy. Measured on H200 (docs/performance.md,
// "Small copies"): staged to the device won from 12 MiB in every trial of two passes, and at
// 8 MiB tied in one (1.02x) and lost in the other (1.10-1.21x); from the device (2 MiB chunks)
// it won from 4 MiB and lost at 2 MiB.
inline constexpr uint64_t kDirectBelowToDevice = uint64_t(12) << 20;
inline constexpr uint64_t kDirectBelowFromDevice = uint64_t(4) << 20;
inline constexpr uint64_t kDirectBelowAuto = ~uint64_t(0);  // each direction its own

// The engine's place in the machine's engine registry (Engine.stats()["registry"]).
struct EngineRegistryView {
    std::string path;   // the registry file
    std::string why;    // non-empty: the registry could not be used, the engine runs alone
    EngineShare share;  // as of now (rescanned when due)
};

// What an engine has done, for Engine.stats().
struct EngineStats {
    StagingTotals staged;       // through the helpers
    uint64_t plain_copies = 0;  // page-locked or small: one plain copy each
    uint64_t plain_bytes = 0;
    uint64_t host_copies = 0;  // host to host
};

class ModuleEngine {
  public:
    // Makes and starts the engine (allocates its page-locked buffers). Throws EngineError.
    ModuleEngine(CopyPlatform& platform, const EngineRequest& request);
    ~ModuleEngine();
    ModuleEngine(const ModuleEngine&) = delete;
    ModuleEngine& operator=(const ModuleEngine&) = delete;

    int device() const { return request_.device; }
    const StagingConfig& config() const { return config_; }
    const std::string& note() const { return note_; }
    CopyPlatform& platform() const { return platform_; }
    // Copies smaller than this are one plain copy (Engine(direct_below=...): kDirectBelowAuto
    // is kDirectBelowToDevice or kDirectBelowFromDevice by direction).
    uint64_t direct_below(bool to_device) const {
        if (direct_below_ != kDirectBelowAuto) return direct_below_;
        return to_device ? kDirectBelowToDevice : kDirectBelowFromDevice;
    }
    uint64_t direct_below_setting() const { return direct_below_; }
    void set_direct_below(uint64_t bytes) { direct_below_ = bytes; }

    // Staged to or from the device; `stream` (0: none) is waited for first. The GIL must be
    // released. Throws EngineError with the engine's message (device, chunk, offset).
    void staged(std::byte* host, std::byte* device, uint64_t bytes, bool to_device,
                bool page_locked, uintptr_t stream);
    // A plain copy on the caller's stream, counted in the stats.
    void plain(std::byte* dst, const std::byte* src, uint64_t bytes, bool to_device,
               uintptr_t stream);
    void count_host_copy() {
        std::lock_guard lock(mutex_);
        ++host_copies_;
    }

    EngineStats stats() const;
    // The helpers the latest staged copy let take work: fewer than config().threads while other
    // engines on the machine share the CPUs (threads="auto"); 0 once closed.
    int active_helpers() const;
    // Its registry slot and share; nullopt when it has none (closed, or made without one).
    std::optional<EngineRegistryView> registry() const;
    // Waits for the copies in flight, stops the helpers and frees the buffers. Idempotent.
    void close();
    bool closed() const;

  private:
    // Counts a copy in flight; throws EngineError when closed or used after fork().
    void enter();
    void leave();

    CopyPlatform& platform_;
    EngineRequest request_;
    std::unique_ptr<StagingEngine> engine_;
    std::string note_;
    std::shared_ptr<EngineRegistration> registration_;  // the slot, given back by close()
    pid_t pid_ = 0;
    uint64_t direct_below_ = kDirectBelowAuto;
    StagingConfig config_;         // the engine's, without its registry hook
    StagingTotals closed_totals_;  // what the engine had done when it was closed
    mutable std::mutex mutex_;
    std::condition_variable idle_;
    int in_flight_ = 0;
    bool closed_ = false;
    uint64_t plain_copies_ = 0, plain_bytes_ = 0, host_copies_ = 0;
};

// The engine of `device` that xferlab.copy shares between every thread of the process, made on
// first use with automatic settings on the current platform.
std::shared_ptr<ModuleEngine> shared_engine(int device);
// The current platform: CUDA, or the fake after use_fake_platform(true) (tests). Switching
// closes the shared engines.
CopyPlatform& current_platform();
void use_fake_platform(bool fake);
// Closes every shared engine (atexit; the embedded interpreter's shutdown).
void close_shared_engines();

}  // namespace xfer::pyapi
