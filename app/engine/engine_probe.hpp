#pragma once
// What a staging engine tells whoever measures it: the harness (its run's helper threads, their
// timeline and the DMAs' CUPTI ids: backend/staging_probe.hpp) or Engine(measure=True)
// (engine/stats_probe.hpp). The decorator around the engine's device
// (engine/measured_staging_device.hpp) reads the clock and calls these; an engine made without a
// probe has no decorator, and its hot path is the copy, the DMA's start, the wait and the
// hand-out. Calls naming a helper come from that helper's thread, or name kCallerThread
// (engine/staging_device.hpp) when a caller copied a piece on its own thread; request calls come
// from the caller's. Timestamps are now_ns() (CLOCK_MONOTONIC).
#include <cstdint>

namespace xfer {

class EngineProbe {
  public:
    virtual ~EngineProbe() = default;
    // Once, on the helper's thread, after it attached to the device.
    virtual void helper_started(int /*helper*/) {}
    // The helper took work after being idle, or went idle (nothing to take, nothing in flight).
    virtual void helper_busy(int /*helper*/, int64_t /*at*/) {}
    virtual void helper_idle(int /*helper*/, int64_t /*at*/) {}
    // A host copy of `bytes` into or out of a page-locked buffer.
    virtual void copied(int /*helper*/, uint64_t /*bytes*/, int64_t /*begin*/, int64_t /*end*/) {}
    // The helper started a DMA of request `request`: the API call took [begin, end]. Called
    // right after the call, so a CUPTI callback's correlation id of it is still the thread's
    // latest.
    virtual void dma_started(int /*helper*/, uint64_t /*request*/, int64_t /*begin*/,
                             int64_t /*end*/) {}
    // The helper waited for the DMA of `request` issued at `issued` over [begin, end]: at `end`
    // it was seen done.
    virtual void dma_waited(int /*helper*/, uint64_t /*request*/, int64_t /*issued*/,
                            int64_t /*begin*/, int64_t /*end*/) {}
    // The helper spun, waiting for another's DMA or for a buffer, over [begin, end].
    virtual void spun(int /*helper*/, int64_t /*begin*/, int64_t /*end*/) {}
    // On the caller's thread: a copy (request) arrived, and is returning to its caller
    // (`failed`: with an error).
    virtual void request_started(uint64_t /*request*/, int64_t /*at*/) {}
    virtual void request_finished(uint64_t /*request*/, int64_t /*at*/, bool /*failed*/) {}
};

}  // namespace xfer
