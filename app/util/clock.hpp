#pragma once
// One monotonic clock for every timestamp xferlab takes: host records, device records converted
// to it, trace events. CLOCK_MONOTONIC in nanoseconds (not steady_clock's unspecified epoch) so
// that separate processes on one host share it.
#include <cstdint>
#include <ctime>

namespace xfer {

inline int64_t now_ns() noexcept {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return int64_t(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

// Wall-clock time (CLOCK_REALTIME) for naming output folders and stamping results.
inline int64_t wall_ns() noexcept {
    timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return int64_t(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

}  // namespace xfer
