#pragma once
// The staging engine's defaults as numbers, in one place: what each "auto" of EngineOptions
// (settings/engine_options.hpp) becomes, measured on H200 hosts. engine/engine_resolve.cpp and
// engine/auto_helpers.hpp apply them, StagingConfig's member defaults are taken from them, the
// options' docs (the [staging] keys' help, Engine's docstring) print them, a test compares
// docs/scenarios.md with them, and Engine.defaults() returns them beside each rule. It lives in
// settings/ rather than engine/ because the options' docs (settings/) read it and settings is
// the floor below engine (tools/check-layers.py).
#include <cstdint>

namespace xfer {

struct EngineDefaults {
    // threads = "auto": this many times the helpers that would feed the device's link at one
    // thread's measured memcpy rate into page-locked memory. Copying out of page-locked memory
    // while the DMA fills the next buffer, 9 helpers on an H200 host whose probe read 11.1 GB/s
    // moved about half that each (0.88x pinned from the device against 0.96x with 12, every
    // trial; 8 against 12 on another: 0.82x against 0.95x; docs/results/h200-module.md, passes
    // 10 and 11). 1.5 gave those hosts 8-9 helpers; 2 gives them the 12 measured best both ways.
    double helpers_per_link_share = 2.0;
    // threads = "auto": at most this many helpers on one device: 16 were no faster than 12 on
    // H200 (two machines, docs/performance.md, pass 9). The memory preflight counts "auto"
    // threads as this many.
    int max_auto_threads = 12;
    // chunk = "auto" with shared DMAs: eight to a DMA of 8 MiB, measured on H200 with one and
    // four callers (docs/results/h200-module.md, passes 8 and 11).
    uint64_t chunk = uint64_t(1) << 20;
    // chunk = "auto" with a DMA per chunk (dma = "chunk"): to the device 4 MiB (larger DMAs:
    // 0.93-0.94x pinned against 0.91-0.92x with 2 MiB; 8 MiB fell to 0.66x), from it 2 MiB
    // (4 MiB swung between 0.79x and 0.93x from trial to trial): docs/results/h200-cure.md.
    uint64_t chunk_to_device_per_chunk_dma = uint64_t(4) << 20;
    uint64_t chunk_from_device_per_chunk_dma = uint64_t(2) << 20;
    // dma = "auto": this many chunks, filled (or emptied) by the helpers together.
    uint64_t chunks_per_dma = 8;
    // buffers = "auto": with shared DMAs half a DMA's worth of chunks per helper, so that the
    // page-locked memory holds two DMAs per four helpers (48 MiB with 12 helpers, 1 MiB chunks:
    // less was slower in every trial, pass 12); with a DMA per chunk two per helper.
    int buffers = 4;
    int buffers_per_chunk_dma = 2;
    // direct_below = "auto": below these a copy is one plain copy. Measured on H200
    // (docs/performance.md, "Small copies"): staged to the device won from 12 MiB in every trial
    // of two passes; from the device (its pieces then 1-2 MiB) from 4 MiB.
    uint64_t direct_below_to_device = uint64_t(12) << 20;
    uint64_t direct_below_from_device = uint64_t(4) << 20;
    // lock = "spin": how long a thread that finds the engine's lock taken keeps trying before it
    // sleeps (util/spin_first_mutex.hpp). The lock is held about a microsecond at a time; eleven
    // helpers woken together on the H100 host's virtual CPUs took their first work over 225 us,
    // about 20 us apart (docs/performance.md), so a budget of a few such wake-ups. Not yet the
    // default: not yet run on a GPU host.
    int64_t lock_spin_ns = 50'000;
    // wake = "call": how long the helpers a copy's call woke spin for its arrival before they
    // sleep again. The call's way into the engine took 120-180 us on the H100 host after its
    // CPUs idled (docs/performance.md, "The way in, leg by leg").
    int64_t expect_spin_ns = 500'000;

    // Bytes per DMA with dma = "auto" and the chunk left "auto".
    constexpr uint64_t dma() const { return chunks_per_dma * chunk; }
};

inline constexpr EngineDefaults kEngineDefaults{};

// Held here so that a change of one number is a change of its rule, not of the rule's shape.
static_assert(kEngineDefaults.buffers == int(kEngineDefaults.chunks_per_dma / 2),
              "buffers = \"auto\" with shared DMAs is half a DMA's worth of chunks per helper");

}  // namespace xfer
