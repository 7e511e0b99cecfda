#pragma once
// Applying thread attributes: at creation (pthread_attr: stack size, policy) and from inside
// the thread (signal mask, affinity, policy). Each function throws std::runtime_error with
// the failing call and errno text.
#include <pthread.h>

#include <vector>

#include "settings/specs.hpp"

namespace xfer {

// CPUs for worker `worker` of `count` under `spec` (empty: leave affinity alone).
// `gpu_local_cpus` is the device's local CPU list for gpu-local (empty when unknown).
std::vector<int> affinity_for_worker(const AffinitySpec& spec, int worker, int count,
                                     const std::vector<int>& gpu_local_cpus = {});

// From inside the thread.
void apply_signal_mask(const SignalMaskSpec& spec);
void apply_affinity(const std::vector<int>& cpus);
void apply_policy(const PolicySpec& spec);
// Returns the ns actually spent (0 for none). spin: reads the clock in a loop (vDSO, no system
// call); sleep: sleeps at least the thread's timer slack (/proc/self/timerslack_ns).
int64_t apply_between(const BetweenSpec& spec);

// Attributes for pthread_create (stack size; the policy is applied from inside the thread).
struct ThreadAttributes {
    pthread_attr_t attr;
    explicit ThreadAttributes(const ThreadSpec& spec);
    ~ThreadAttributes();
    ThreadAttributes(const ThreadAttributes&) = delete;
    ThreadAttributes& operator=(const ThreadAttributes&) = delete;
};

}  // namespace xfer
