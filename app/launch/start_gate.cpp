// How workers leave the starting line. The release time is taken once, by the last worker to
// arrive (or by the coordinator), so that staggered starts are offsets from one instant rather
// than from each worker's own wake-up.
#include "launch/start_gate.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>

#include "util/clock.hpp"

namespace xfer {

StartGate::StartGate(int parties, StartSpec spec) : parties_(parties), spec_(spec) {}

void StartGate::open_locked() {
    open_ = true;
    release_ns_ = now_ns();
    cv_.notify_all();
}

template <typename Done>
bool StartGate::wait_locked(std::unique_lock<std::mutex>& lock, int64_t until_ns, Done done) {
    // In steps of at most an hour: the clock's time plus "no deadline" (INT64_MAX) would
    // overflow inside wait_for.
    constexpr int64_t kLongestStepNs = 3600'000'000'000;
    for (int64_t now = now_ns(); !done(); now = now_ns()) {
        if (now >= until_ns) return false;
        cv_.wait_for(lock, std::chrono::nanoseconds(std::min(until_ns - now, kLongestStepNs)));
    }
    return true;
}

void StartGate::set_deadline(const RunDeadline* deadline) {
    std::lock_guard lock(mutex_);
    deadline_ = deadline;
}

int64_t StartGate::arrive_and_wait(int worker) {
    if (spec_.kind == StartKind::free) return aborted() ? -1 : now_ns();

    std::unique_lock lock(mutex_);
    if (aborted_) return -1;
    const int64_t deadline_ns = deadline_ ? deadline_->at_ns() : INT64_MAX;
    if (++arrived_ >= parties_ && !coordinated_) {
        open_locked();
    } else {
        if (arrived_ >= parties_) cv_.notify_all();  // wakes the coordinator
        if (!wait_locked(lock, deadline_ns, [&] { return open_ || aborted_; })) {
            deadline_->expire();
            return -1;
        }
        // Released is released: an abort after the opening (a sub-interpreter whose run ended
        // first, launcher python-subinterp) must not turn back a waiter not yet awake.
        if (!open_) return -1;
    }
    if (spec_.kind == StartKind::barrier) return release_ns_;

    // Staggered: sleep until this worker's slot, waking early only for abort() or the run's
    // deadline. A slot past what the clock can count waits for one of those (the loader
    // refuses such a stagger: no worker is left behind by an overflow).
    int64_t offset = 0, slot = 0;
    if (__builtin_mul_overflow(int64_t(worker), spec_.stagger_ns, &offset) ||
        __builtin_add_overflow(release_ns_, offset, &slot))
        slot = INT64_MAX;
    if (!wait_locked(lock, std::min(slot, deadline_ns), [&] { return aborted_; }) &&
        deadline_ns <= slot) {
        deadline_->expire();
        return -1;
    }
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
