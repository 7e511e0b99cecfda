#pragma once
// The one copy loop. Every path that copies runs its copies here: host and OpenMP threads,
// host+gil threads, Python's w.copy() / w.copy(count=n), worker processes and MPI ranks. The
// stop check, the `between` gap and the copy routine (Worker::copy_once) are therefore the same
// code on every path; launchers differ only in who created the thread and what it holds.
#include <atomic>
#include <string>

#include "launch/run_deadline.hpp"
#include "launch/start_gate.hpp"
#include "launch/worker.hpp"
#include "settings/specs.hpp"

namespace xfer {

// Whether copying should stop: SIGINT/SIGTERM/SIGHUP, the run's own stop (a payload run's
// timeout), or the run's deadline (scenario.timeout where the launcher does not enforce it
// itself: launch/run_deadline.hpp). Any of them may be null.
struct StopCondition {
    const std::atomic<bool>* first = nullptr;
    const std::atomic<bool>* second = nullptr;
    const RunDeadline* deadline = nullptr;
    bool requested() const noexcept {
        return (first && first->load(std::memory_order_relaxed)) ||
               (second && second->load(std::memory_order_relaxed)) ||
               (deadline && deadline->passed());
    }
};

// What a caller wraps around each copy and each gap. Native threads wrap nothing; host+gil
// threads hand the GIL off around both (embed/host_gil_launcher.cpp).
class CopyGuard {
  public:
    virtual ~CopyGuard() = default;
    virtual void copy(Worker& worker) { worker.copy_once(); }
    // The gap between two copies: Worker::pause_between keeps the time it took for the next
    // record (between_ns).
    virtual void gap(Worker& worker, const BetweenSpec& between) {
        worker.pause_between(between);
    }
};

// Up to `count` copies by `worker`: `between` before every copy but the first, and the stop
// condition checked before every copy (after the gap, so a long sleep ends in a stop, not in
// one more copy). Returns the number of copies made.
int copy_loop(Worker& worker, int count, const BetweenSpec& between, StopCondition stop,
              CopyGuard& guard);

// A launcher's worker thread: ThreadInfo and backend set-up inside the thread, the start gate,
// then copy_loop over warm-up + repetitions. Returns early when the gate was aborted.
void run_worker_loop(Worker& worker, const std::string& launcher, const ThreadSpec& threads,
                     StartGate& gate, StopCondition stop, CopyGuard& guard);
void run_worker_loop(Worker& worker, const std::string& launcher, const ThreadSpec& threads,
                     StartGate& gate, StopCondition stop);

}  // namespace xfer
