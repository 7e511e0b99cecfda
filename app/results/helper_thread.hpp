#pragma once
// A thread a backend ran for a run besides the workers (the staging engine's helpers): its
// ThreadInfo, read inside it, and when it was busy, for the timeline.
#include <array>
#include <cstdint>
#include <vector>

#include "system/thread_info.hpp"

namespace xfer {

// Where a staging helper's busy time went, summed over its chunks: the host copy into or out of
// a page-locked buffer, starting the DMA (the API call), waiting for a DMA to finish. Busy time
// left over is scheduling (the engine's lock, taking the next chunk).
struct HelperWork {
    uint64_t chunks = 0;        // chunks this helper started
    uint64_t copied_bytes = 0;  // bytes it copied on the host (bounced chunks only)
    int64_t copy_ns = 0;
    int64_t start_ns = 0;
    int64_t wait_ns = 0;

    bool empty() const { return chunks == 0; }
    HelperWork& operator+=(const HelperWork& o) {
        chunks += o.chunks;
        copied_bytes += o.copied_bytes;
        copy_ns += o.copy_ns;
        start_ns += o.start_ns;
        wait_ns += o.wait_ns;
        return *this;
    }
};

struct HelperThread {
    ThreadInfo thread;  // launcher: what ran it, e.g. "staging (device 0)"; worker: its index
    // [start, end] on the host clock (CLOCK_MONOTONIC ns): from taking work after being idle
    // to going idle again (nothing in flight, nothing to take). At most kMaxBusySpans; later
    // spans are counted in busy_dropped.
    std::vector<std::array<int64_t, 2>> busy;
    uint64_t busy_dropped = 0;
    HelperWork work;
};

constexpr size_t kMaxBusySpans = 4096;

}  // namespace xfer
