#pragma once
// The staging engine's private parts, shared by its two source files (staging_engine.cpp: the
// engine and the per-helper buffers; staging_units.cpp: the shared buffers of staging.dma).
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/staging_engine.hpp"

namespace xfer {

// One caller's copy in flight. Lives on the caller's stack for the duration of its call; linked
// into the engine's ring of active requests. Every field is guarded by the engine's mutex.
struct StagingEngine::Request {
    bool to_device = true;
    bool direct = false;  // the host memory is page-locked: no bounce buffer
    std::byte* host = nullptr;
    std::byte* device = nullptr;
    uint64_t bytes = 0;
    uint64_t id = 0;           // the device's name for it (StagingDevice::request_started)
    uint64_t chunk = 0;        // bytes per DMA of this request
    int helpers = 1;           // helpers taking work when it started (StagingEngine::active_)
    uint64_t next = 0;         // offset of the next range to hand out
    FileRange file;            // to the device: the file behind `host` (read_mapped_files)
    uint64_t outstanding = 0;  // ranges handed out and not yet retired
    bool failed = false;
    std::string error;  // the first failure (assigned off the timed path only on failure)
    std::condition_variable_any done;  // with the engine's SpinFirstMutex
    Request* link = nullptr;  // the next active request

    bool finished() const { return next >= bytes && outstanding == 0; }
};

// One helper thread's state. With buffers of its own, its chunks are issued into slots
// round-robin and completed in the same order, so the slots form a ring: [tail, head) are in
// flight.
struct StagingEngine::Helper {
    int index = 0;
    std::vector<Chunk> slots;
    uint64_t head = 0;
    uint64_t tail = 0;
    bool busy = false;  // between taking work and going idle (told to the device)
};

}  // namespace xfer
