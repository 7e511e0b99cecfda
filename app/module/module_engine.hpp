#pragma once
// One staging engine as the Python module holds it (xferlab.Engine, or the shared engine of a
// device that xferlab.copy uses): made on a platform (CUDA, or the tests' fake), used by any
// number of threads at once, closed once. Copies run with the GIL released; nothing here
// touches Python.
#include <sys/types.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>

#include "engine/copy_platform.hpp"
#include "engine/stats_probe.hpp"
#include "settings/engine_options.hpp"

namespace xfer::pyapi {

// A failure of the device or the engine, or a use the engine cannot serve (closed, forked):
// xferlab.Error in Python (a RuntimeError).
struct EngineError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// The engine's place in the machine's engine registry (Engine.stats()["registry"]).
struct EngineRegistryView {
    std::string path;   // the registry file
    std::string why;    // non-empty: the registry could not be used, the engine runs alone
    EngineShare share;  // as of now (rescanned when due)
};

// Where a call's time went before its copy reached the engine (now_ns(): CLOCK_MONOTONIC), for
// a measured engine's latest staged copy: the call entered the module, had its memory's views,
// its route, and had waited for the streams it follows (the copy's arrival is the engine's).
struct CallMoments {
    int64_t entered = 0;
    int64_t viewed = 0;
    int64_t routed = 0;
    int64_t waited = 0;
};

// What an engine has done, for Engine.stats().
struct EngineStats {
    StagingTotals staged;       // through the helpers
    uint64_t plain_copies = 0;  // page-locked, small or pageable read directly: one plain copy
    uint64_t plain_bytes = 0;
    uint64_t host_copies = 0;  // host to host
    // Engine(measure=True), or inside xferlab run: the helpers' times and a copy's edges.
    std::optional<ProbeTotals> measured;
    CallMoments last_call;  // measured engines only (zeros until a staged copy)
};

// The probe of an engine of `helpers` helper threads made where the module lives (inside xferlab
// run: backend/payload_engine_probe.hpp); nullptr: none.
using StatsProbeMaker = std::function<std::shared_ptr<StatsProbe>(int helpers)>;

class ModuleEngine {
  public:
    // Makes and starts the engine on `device` (allocates its page-locked buffers). Throws
    // EngineError.
    ModuleEngine(CopyPlatform& platform, int device, const EngineOptions& options);
    ~ModuleEngine();
    ModuleEngine(const ModuleEngine&) = delete;
    ModuleEngine& operator=(const ModuleEngine&) = delete;

    int device() const { return device_; }
    const EngineOptions& options() const { return options_; }
    // Its resolved settings (without the registry hook) and the note that explains them.
    const ResolvedEngine& resolved() const { return resolved_; }
    const StagingConfig& config() const { return resolved_.config; }
    const std::string& note() const { return resolved_.note; }
    CopyPlatform& platform() const { return platform_; }
    // Copies smaller than this are one plain copy (Engine(direct_below=...)).
    uint64_t direct_below(bool to_device) const {
        return to_device ? resolved_.direct_below_to_device : resolved_.direct_below_from_device;
    }
    // Pageable memory goes as one plain copy (the device reads it through the host's page
    // tables, or Engine(pageable="direct")).
    bool pageable_direct() const { return resolved_.pageable_direct; }

    // Staged to or from the device; `stream` (0: none) is waited for first. The GIL must be
    // released. Throws EngineError with the engine's message (device, chunk, offset).
    void staged(std::byte* host, std::byte* device, uint64_t bytes, bool to_device,
                bool page_locked, uintptr_t stream);
    // A plain copy on the caller's stream, counted in the stats.
    void plain(std::byte* dst, const std::byte* src, uint64_t bytes, bool to_device,
               uintptr_t stream);
    // As a call enters the module, before its views: where this engine's latest copy was
    // staged, the next probably is too, so its helpers are woken now (StagingEngine::
    // expect_copy; Engine(wake="arrival"): not). A stream of small copies, each plain, wakes
    // nothing.
    void expect_copy();
    // Its calls wake the helpers as they enter (Engine(wake="call")).
    bool wakes_on_call() const { return resolved_.config.expect_spin_ns > 0; }
    void count_host_copy() {
        std::lock_guard lock(mutex_);
        ++host_copies_;
    }

    // Measured (Engine(measure=True), or inside xferlab run): its calls are timed too.
    bool measured() const { return probe_ != nullptr; }
    // A measured engine's staged copy's moments before the engine, kept for stats().
    void note_call(const CallMoments& m) {
        std::lock_guard lock(mutex_);
        last_call_ = m;
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
    int device_;
    EngineOptions options_;
    ResolvedEngine resolved_;  // without its registry hook (which holds the registry slot)
    std::unique_ptr<StagingEngine> engine_;
    std::shared_ptr<StatsProbe> probe_;  // the home's maker's, or measure=True's; else nullptr
    std::shared_ptr<EngineRegistration> registration_;  // the slot, given back by close()
    pid_t pid_ = 0;
    StagingTotals closed_totals_;  // what the engine had done when it was closed
    mutable std::mutex mutex_;
    std::condition_variable idle_;
    int in_flight_ = 0;
    bool closed_ = false;
    uint64_t plain_copies_ = 0, plain_bytes_ = 0, host_copies_ = 0;
    CallMoments last_call_;
    std::atomic<bool> last_staged_{false};  // the latest copy was staged (expect_copy)
};

// The engine of `device` that xferlab.copy shares between every thread of the process, made on
// first use with automatic settings on the current platform.
std::shared_ptr<ModuleEngine> shared_engine(int device);
// xferlab.copy's expect_copy(): the shared engine that staged the process's latest staged copy,
// where it is open (made on no account).
void expect_shared_copy();
// Its record: `device`'s shared engine staged a copy.
void note_shared_staged(int device);
// The current platform: CUDA, or the one a test build put in its place.
CopyPlatform& current_platform();
// Copies go to `platform` from now on (nullptr: CUDA again); the shared engines close. Only the
// test build's module calls it (its fake device, module/testing/).
void replace_platform(CopyPlatform* platform);
// Closes every shared engine (atexit; the embedded interpreter's shutdown).
void close_shared_engines();
// Engines made from now on get `maker`'s probe (besides Engine(measure=True)'s): given by the
// module's home when it binds the module (bind_transfer_api); the extension module gives none.
void set_engine_probe_maker(StatsProbeMaker maker);

}  // namespace xfer::pyapi
