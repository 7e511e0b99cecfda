#pragma once
// The start discipline: a barrier all workers leave together, free start, or staggered start
// (worker i leaves i * stagger after the barrier).
#include <condition_variable>
#include <cstdint>
#include <mutex>

#include "scenario/scenario.hpp"

namespace xfer {

class StartGate {
public:
    StartGate(int parties, StartSpec spec);
    // Blocks per the discipline. Returns the host time (ns) at which the worker was released.
    int64_t arrive_and_wait(int worker);
    // Releases every waiter (used when a run is aborted).
    void abort();
    bool aborted() const;

private:
    int parties_;
    StartSpec spec_;
    mutable std::mutex mutex_;
    std::condition_variable cv_;
    int arrived_ = 0;
    bool open_ = false;
    bool aborted_ = false;
    int64_t release_ns_ = 0;
};

}  // namespace xfer
