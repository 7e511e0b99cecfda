#pragma once
// scenario.timeout for the launchers that do not enforce it themselves: host, OpenMP, host+gil,
// and the threads of worker processes and MPI ranks (launchers process and mpi). Before issue
// 54 only the Python launchers honoured it: with timeout = "2s", host and OpenMP runs of 5.2 s
// were marked ok, and a `staggered:100s` start waited its 100 s. Each worker asks before every
// copy (a clock read beside the two that time the copy), a gap between copies ends at it, and
// the start gate's waits (a staggered start's slot) end at it: the workers stop after their
// current copy and the run fails saying so.
#include <atomic>
#include <cstdint>

#include "settings/specs.hpp"

namespace xfer {

class RunDeadline {
  public:
    // `timeout_ns` from now (> 0).
    explicit RunDeadline(int64_t timeout_ns);

    int64_t at_ns() const { return at_ns_; }
    int64_t timeout_ns() const { return timeout_ns_; }
    // Whether the deadline has passed (reads the clock); a worker that sees it pass stops, and
    // expired() remembers it.
    bool passed() const noexcept;
    // Whether a worker stopped at it.
    bool expired() const noexcept { return expired_.load(std::memory_order_relaxed); }
    // Marks the deadline as what stopped a worker (a wait that ended at it).
    void expire() const noexcept { expired_.store(true, std::memory_order_relaxed); }
    // `between` cut to what is left before the deadline: a gap never runs past it (the copy it
    // would precede is not made then, so no record holds the shortened gap).
    BetweenSpec clipped(const BetweenSpec& between) const noexcept;

  private:
    int64_t timeout_ns_;
    int64_t at_ns_;
    mutable std::atomic<bool> expired_{false};
};

}  // namespace xfer
