#pragma once
// The start discipline: a barrier all workers leave together, free start, or staggered start
// (worker i leaves i * stagger after the barrier).
//
// A coordinated gate spans processes: the local workers arrive as usual, but the barrier opens
// only when a coordinator (the launcher's own thread) has seen every local worker arrive, synced
// with the other processes or ranks, and called release(). Free start needs no coordination.
#include <condition_variable>
#include <cstdint>
#include <mutex>

#include "launch/run_deadline.hpp"
#include "settings/specs.hpp"

namespace xfer {

class StartGate {
  public:
    StartGate(int parties, StartSpec spec);

    // Blocks per the discipline. Returns the host time (ns) at which the worker was released,
    // -1 when the gate was aborted. `worker` is the worker's index in the whole run.
    int64_t arrive_and_wait(int worker);
    // Releases every waiter not released yet, with -1 (used when a run is aborted); a waiter of a
    // barrier that opened before is released as it was.
    void abort();
    bool aborted() const;

    // The run's deadline (launch/run_deadline.hpp), set before any worker arrives: a wait that
    // reaches it ends as an abort would (-1), and the deadline says it expired.
    void set_deadline(const RunDeadline* deadline);

    // Coordinated mode: set before any worker arrives.
    void set_coordinated();
    // Coordinator: blocks until every local party arrived (true) or the gate was aborted (false).
    bool wait_until_arrived();
    // Coordinator: opens the barrier now (staggered slots count from this instant).
    void release();
    bool needs_coordination() const { return spec_.kind != StartKind::free; }

  private:
    void open_locked();
    // Waits on cv_ until `done` or the deadline; false when the deadline ended the wait.
    template <typename Done>
    bool wait_locked(std::unique_lock<std::mutex>& lock, int64_t until_ns, Done done);

    int parties_;
    StartSpec spec_;
    mutable std::mutex mutex_;
    std::condition_variable cv_;
    int arrived_ = 0;
    bool coordinated_ = false;
    bool open_ = false;
    bool aborted_ = false;
    int64_t release_ns_ = 0;
    const RunDeadline* deadline_ = nullptr;
};

}  // namespace xfer
