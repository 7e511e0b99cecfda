#pragma once
// A payload's w.timed() block open on the calling thread (xferlab run, CUPTI timing) and copies
// made for it on other threads: the Python module's staging engine starts a block's DMAs on its
// helper threads, whose calls the block's capture does not see. The harness's CUPTI tracer sets
// these hooks; where there is no tracer (the extension module) they stay empty, the module's
// engines take no probe for them, and nothing is joined.
#include <cstdint>
#include <vector>

#include "engine/stats_probe.hpp"

namespace xfer {

struct TimedBlockHooks {
    uint32_t (*open_tag)() = nullptr;  // the calling thread's open block's tag; 0: none
    // Gives the DMAs' correlation ids the block's tag, as the block's own calls get it.
    void (*join)(const std::vector<CorrelationAlias>& aliases) = nullptr;
    // Reads and clears the calling thread's latest CUPTI correlation id (StatsProbe's reader):
    // an engine made while the hooks are set keeps its DMAs' ids for join.
    uint32_t (*correlation)() = nullptr;
};

void set_timed_block_hooks(const TimedBlockHooks& hooks);
TimedBlockHooks timed_block_hooks();

}  // namespace xfer
