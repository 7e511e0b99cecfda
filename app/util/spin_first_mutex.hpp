#pragma once
// A mutex whose lock() keeps trying for a while before it sleeps: the staging engine's lock
// (staging.lock = "spin"). The engine's helpers hold it for about a microsecond at a time and
// wake together when a copy arrives. With a std::mutex alone, a helper that finds it taken sleeps
// in the kernel at once, and each unlock wakes one sleeper, so helpers woken together may take
// their first work one wake-up after another: where a wake-up is an interrupt to an idle CPU
// (tens of us on a virtual machine's). On the H100 host the first of eleven helpers took work
// 30 us after a copy arrived and the last 225 us (docs/performance.md); that the lock is why is
// what staging.lock switches, not yet run on a GPU host. Trying first, helpers that are running
// hand the lock on while running; one that still finds it taken after the budget sleeps as
// before (a holder descheduled on a crowded machine is not waited for by spinning). A budget of
// 0 is a plain std::mutex.
//
// Trying means a pause per turn, a try_lock every few, and a yield now and then (the holder may
// need this CPU), with the clock read once per 64 turns. Built on std::mutex, so that the
// sanitizers see an ordinary lock.
#include <atomic>
#include <cstdint>
#include <mutex>
#include <thread>

#include "util/clock.hpp"
#include "util/cpu_pause.hpp"

namespace xfer {

class SpinFirstMutex {
  public:
    explicit SpinFirstMutex(int64_t spin_ns = 0) : spin_ns_(spin_ns) {}
    SpinFirstMutex(const SpinFirstMutex&) = delete;
    SpinFirstMutex& operator=(const SpinFirstMutex&) = delete;

    // Before the lock is shared between threads (an engine's start()).
    void set_spin_ns(int64_t ns) { spin_ns_ = ns; }
    int64_t spin_ns() const { return spin_ns_; }

    void lock() {
        if (mutex_.try_lock()) return;
        contended_.fetch_add(1, std::memory_order_relaxed);
        if (spin_ns_ > 0) {
            const int64_t until = now_ns() + spin_ns_;
            for (unsigned turn = 1;; ++turn) {
                cpu_pause();
                if (turn % kTurnsPerTry == 0 && mutex_.try_lock()) return;
                if (turn % kTurnsPerCheck != 0) continue;
                if (now_ns() >= until) break;
                std::this_thread::yield();
            }
        }
        slept_.fetch_add(1, std::memory_order_relaxed);
        mutex_.lock();
    }
    bool try_lock() { return mutex_.try_lock(); }
    void unlock() { mutex_.unlock(); }

    // How often lock() found the lock taken, and how often it then slept for it (counted
    // before it slept: a lock() asleep now is counted).
    uint64_t contended() const { return contended_.load(std::memory_order_relaxed); }
    uint64_t slept() const { return slept_.load(std::memory_order_relaxed); }

  private:
    static constexpr unsigned kTurnsPerTry = 4;     // a pause is tens of cycles; a try, a
                                                    // cache line taken from the holder
    static constexpr unsigned kTurnsPerCheck = 64;  // the clock and a yield
    std::mutex mutex_;
    int64_t spin_ns_;
    std::atomic<uint64_t> contended_{0};
    std::atomic<uint64_t> slept_{0};
};

}  // namespace xfer
