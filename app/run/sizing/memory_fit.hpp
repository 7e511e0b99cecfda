#pragma once
// `run --fit`: the largest copy size for which a plan fits what this process can get, so that
// the demo runs on a small machine instead of being refused. A pure function of the plan's
// need and the memory budget, tested against fake budgets.
#include <cstdint>
#include <functional>
#include <string>

#include "system/memory_limits.hpp"

namespace xfer {

inline constexpr uint64_t kFitFloorBytes = uint64_t(64) << 20;

struct FitRequest {
    uint64_t full_bytes = 0;  // the plan's largest transfer.bytes, as written
    uint64_t floor_bytes = kFitFloorBytes;
    // Host bytes of the plan's largest run with every copy at most `bytes` long.
    std::function<uint64_t(uint64_t bytes)> need;
};

struct FitChoice {
    bool fits = false;     // false: not even copies of floor_bytes fit
    bool reduced = false;  // fits with copies smaller than full_bytes
    uint64_t bytes = 0;    // copy size to run with; full_bytes when the plan fits as written
    uint64_t needed = 0;   // need at that size plus headroom (at floor_bytes when !fits)
    std::string message;   // one line; empty when the plan fits as written
};

// What a plan needs beyond its buffers to run safely: other processes' growth, and the
// interpreter, thread stacks and malloc arenas that appear after the preflight.
uint64_t fit_headroom(uint64_t need);

// The plan as written when need + headroom fits the binding limit; else the largest power of
// two below full_bytes, halving down to floor_bytes.
FitChoice fit_copy_size(const FitRequest& request, const MemoryBudget& budget);

}  // namespace xfer
