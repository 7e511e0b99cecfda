#pragma once
// How many helper threads an engine with threads = "auto" starts (before the registry's share
// among engines): kEngineDefaults.helpers_per_link_share times the helpers that would feed the
// device's link at one thread's measured memcpy rate into page-locked memory, at least 1 and at
// most `cap` (the CPUs local to the device, at most kEngineDefaults.max_auto_threads). No CUDA
// here: a unit test holds the rule.
#include <algorithm>
#include <cmath>

#include "settings/engine_defaults.hpp"

namespace xfer {

// link_gbps: what the link carries; one_gbps: one thread's memcpy rate (<= 0: not measured,
// then `cap`).
inline int auto_helper_count(double link_gbps, double one_gbps, int cap) {
    cap = std::max(cap, 1);
    if (one_gbps <= 0) return cap;
    return std::clamp(int(std::ceil(kEngineDefaults.helpers_per_link_share * link_gbps / one_gbps)),
                      1, cap);
}

}  // namespace xfer
