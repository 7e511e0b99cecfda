// How workers leave the starting line. The release time is taken once, by the last worker to
// arrive (or by the coordinator), so that staggered starts are offsets from one instant rather
// than from each worker's own wake-up.
#include "launch/start_gate.hpp"

#include <chrono>

#include "util/clock.hpp"

namespace xfer {

StartGate::StartGate(int parties, StartSpec spec) : parties_(parties), spec_(spec) {}

void StartGate::open_locked() {
    open_ = true;
    release_ns_ = now_ns();
    cv_.notify_all();
}

int64_t StartGate::arrive_and_wait(int worker) {
    if (spec_.kind == StartKind::free) return aborted() ? -1 : now_ns();

    std::unique_lock lock(mutex_);
    if (aborted_) return -1;
    if (++arrived_ >= parties_ && !coordinated_) {
        open_locked();
    } else {
        if (arrived_ >= parties_) cv_.notify_all();  // wakes the coordinator
        cv_.wait(lock, [&] { return open_ || aborted_; });
        // Released is released: an abort after the opening (a sub-interpreter whose run ended
        // first, launcher python-subinterp) must not turn back a waiter not yet awake.
        if (!open_) return -1;
    }
    if (spec_.kind == StartKind::barrier) return release_ns_;

    // Staggered: sleep until this worker's slot, waking early only for abort().
    const int64_t slot = release_ns_ + int64_t(worker) * spec_.stagger_ns;
    for (int64_t now = now_ns(); now < slot && !aborted_; now = now_ns())
        cv_.wait_for(lock, std::chrono::nanoseconds(slot - now));
    return aborted_ ? -1 : slot;
}

void StartGate::abort() {
    std::lock_guard lock(mutex_);
    aborted_ = true;
    cv_.notify_all();
}

bool StartGate::aborted() const {
    std::lock_guard lock(mutex_);
    return aborted_;
}

void StartGate::set_coordinated() {
    std::lock_guard lock(mutex_);
    coordinated_ = true;
}

bool StartGate::wait_until_arrived() {
    std::unique_lock lock(mutex_);
    cv_.wait(lock, [&] { return arrived_ >= parties_ || aborted_; });
    return !aborted_;
}

void StartGate::release() {
    std::lock_guard lock(mutex_);
    if (!aborted_) open_locked();
}

}  // namespace xfer
