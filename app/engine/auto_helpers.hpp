#pragma once
// How many helper threads an engine with threads = "auto" starts (before the registry's share
// among engines): kAutoHelpersPerLinkShare times the helpers that would feed the device's link
// at one thread's measured memcpy rate into page-locked memory, at least 1 and at most `cap`
// (the CPUs local to the device, at most kMaxAutoHelpers). No CUDA here: a unit test holds the
// rule.
#include <algorithm>
#include <cmath>

namespace xfer {

// Helpers per link share of one thread's probe. Copying out of page-locked memory while the DMA
// fills the next buffer, 9 helpers on an H200 host whose probe read 11.1 GB/s moved about half
// that each (0.88x pinned from the device against 0.96x with 12, every trial; 8 against 12 on
// another: 0.82x against 0.95x; docs/results/h200-module.md, passes 10 and 11). 1.5 gave those
// hosts 8-9 helpers; 2 gives them the 12 that were measured best both ways.
constexpr double kAutoHelpersPerLinkShare = 2.0;

// The most helpers "auto" takes on one device: 16 were no faster than 12 on H200 (two
// machines, docs/performance.md, pass 9).
constexpr int kMaxAutoHelpers = 12;

// link_gbps: what the link carries; one_gbps: one thread's memcpy rate (<= 0: not measured,
// then `cap`).
inline int auto_helper_count(double link_gbps, double one_gbps, int cap) {
    cap = std::max(cap, 1);
    if (one_gbps <= 0) return cap;
    return std::clamp(int(std::ceil(kAutoHelpersPerLinkShare * link_gbps / one_gbps)), 1, cap);
}

}  // namespace xfer
