#pragma once
// A thread a backend ran for a run besides the workers (the staging engine's helpers): its
// ThreadInfo, read inside it, and when it was busy, for the timeline.
#include <array>
#include <cstdint>
#include <vector>

#include "engine/helper_work.hpp"
#include "system/thread_info.hpp"

namespace xfer {

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
