#pragma once
// The staging engine's private parts, shared by its two source files (staging_engine.cpp: the
// engine and the per-helper buffers; staging_units.cpp: the shared buffers of staging.dma).
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "backend/staging_engine.hpp"

namespace xfer {

// One worker's copy in flight. Lives on the worker's stack for the duration of its call; linked
// into the engine's ring of active requests. Every field is guarded by the engine's mutex.
struct StagingEngine::Request {
    bool to_device = true;
    bool direct = false;  // the host memory is page-locked: no bounce buffer
    std::byte* host = nullptr;
    std::byte* device = nullptr;
    uint64_t bytes = 0;
    int worker = 0;
    uint32_t tag = 0;
    uint64_t chunk = 0;        // bytes per chunk of this request
    int helpers = 1;           // helpers taking work when it started (StagingEngine::active_)
    uint64_t next = 0;         // offset of the next chunk to hand out
    uint64_t outstanding = 0;  // chunks handed out and not yet retired
    bool failed = false;
    std::string error;         // the first failure (assigned off the timed path only on failure)
    int64_t arrived_ns = 0;    // the call (now_ns)
    int64_t first_dma_ns = 0;  // its first DMA issued (0: none yet)
    int64_t last_dma_done_ns = 0;  // the latest a helper saw one of its DMAs done
    std::condition_variable done;
    Request* link = nullptr;  // the next active request

    bool finished() const { return next >= bytes && outstanding == 0; }
};

// One helper thread's state. Its chunks are issued into slots round-robin and completed in the
// same order, so the slots form a ring: [tail, head) are in flight.
struct StagingEngine::Helper {
    int index = 0;
    std::vector<Chunk> slots;
    uint64_t head = 0;
    uint64_t tail = 0;
    HelperThread info;
    // Its traced chunks' ids, under their own lock: a helper adds one per chunk inside the timed
    // copy, so it must not wait for the engine's mutex; take_correlations() reads them meanwhile.
    std::mutex aliases_mutex;
    std::vector<CorrelationAlias> aliases;
};

}  // namespace xfer
