#pragma once
// One function turns EngineOptions (settings/engine_options.hpp) into an engine's settings on a
// device: what the harness's [staging] runs and what xferlab.Engine(...) get, so that a staged
// run measures what `import xferlab` ships. The device's part comes in as DeviceFacts, read by
// the platform (engine/cuda: the PCIe link, a memcpy probe, the CPUs near the device; the
// tests' fake: numbers of its own), so resolve() itself is pure and tested without a GPU.
#include <cstdint>
#include <string>
#include <vector>

#include "engine/auto_helpers.hpp"
#include "engine/staging_engine.hpp"
#include "engine/staging_registry.hpp"
#include "settings/engine_defaults.hpp"
#include "settings/engine_options.hpp"

namespace xfer {

// What each "auto" becomes: kEngineDefaults (settings/engine_defaults.hpp), the numbers and
// the measurements behind them in one place.

// What the platform knows about one device.
struct DeviceFacts {
    int device = 0;
    std::string name;             // in notes: "device 0", "fake device 0"
    double link_gbps = 0;         // what its link carries; 0: unknown
    std::string link_text;        // "PCIe gen 5 x16", or why unknown
    double memcpy_gbps = 0;       // one thread's memcpy into page-locked memory; 0: not measured
    std::vector<int> local_cpus;  // CPUs near the device this process may use; empty: unknown
    std::string local_cpus_why;   // why local_cpus is empty
    int cpus = 1;                 // CPUs this process may use
    int helper_cap = kEngineDefaults.max_auto_threads;  // the most helpers "auto" takes
    // cudaDevAttrPageableMemoryAccessUsesHostPageTables: the device reads pageable memory
    // through the host's page tables (Grace Hopper, Grace Blackwell), so a plain copy from it
    // runs at about the page-locked rate and staging would only add host memory traffic.
    bool pageable_uses_host_page_tables = false;
    uint32_t registry_key = 0;  // the device in the engine registry (engine_device_key)
};

struct ResolvedEngine {
    StagingConfig config;
    StagingStreams streams = StagingStreams::one;
    StagingWait wait = StagingWait::spin;
    bool automatic_threads = true;  // threads = "auto": shares the CPUs through the registry
    EngineClaim claim;              // what it registers in the machine's engine registry
    bool pageable_direct = false;   // pageable memory goes as one plain copy
    std::string pageable_why;       // what pageable_direct rests on
    uint64_t direct_below_to_device = kEngineDefaults.direct_below_to_device;
    uint64_t direct_below_from_device = kEngineDefaults.direct_below_from_device;
    bool measure = false;
    std::string note;  // how each "auto" was resolved, and why (a run's notes, Engine.note)
};

ResolvedEngine resolve(const EngineOptions& options, const DeviceFacts& facts);

// The page-locked bytes an engine of `options` with `threads` helpers allocates (the harness's
// memory preflight counts "auto" threads at their upper bound).
uint64_t engine_page_locked_bytes(const EngineOptions& options, int threads);

}  // namespace xfer
