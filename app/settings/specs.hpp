#pragma once
// The values of the [transfer], [staging] and [threads] keys, every default filled in: what a
// scenario sets by default and what one run ran with. Their keys: settings/setting_keys.hpp.
#include <cstdint>
#include <string>
#include <vector>

#include "settings/engine_options.hpp"
#include "settings/enums.hpp"

namespace xfer {

struct HostMemory {
    HostMemoryKind kind = HostMemoryKind::pageable;
    int numa_node = -1;  // for kind == numa
    bool operator==(const HostMemory&) const = default;
};

// "pageable", "numa:1": as a file writes it.
std::string to_string(const HostMemory& m);

struct TransferSpec {
    Direction direction = Direction::h2d;
    uint64_t bytes = 64ull << 20;  // per copy
    HostMemory host_memory;
    FirstTouch first_touch = FirstTouch::worker;
    std::vector<int> devices;  // empty: round-robin over all devices
    CopyApi api = CopyApi::sync;
    StreamKind stream = StreamKind::per_thread;
    TimingMode timing = TimingMode::auto_;
    ContextKind context = ContextKind::primary;
    CopyPath path = CopyPath::driver;
    EngineOptions staging;  // [staging]: the engine of path = "staged"
    int repetitions = 8;
    int warmup = 1;
    bool verify = true;
    bool operator==(const TransferSpec&) const = default;
};

struct StartSpec {
    StartKind kind = StartKind::barrier;
    int64_t stagger_ns = 0;  // for staggered: worker i starts i * stagger_ns after the barrier
    bool operator==(const StartSpec&) const = default;
};

struct SignalMaskSpec {
    SignalMaskKind kind = SignalMaskKind::inherit;
    std::vector<int> signals;  // for list: signals to block
    bool operator==(const SignalMaskSpec&) const = default;
};

struct AffinitySpec {
    AffinityKind kind = AffinityKind::none;
    std::vector<int> cpus;  // for list: worker i gets cpus[i % size]
    bool operator==(const AffinitySpec&) const = default;
};

struct PolicySpec {
    SchedPolicy policy = SchedPolicy::other;
    int priority = 0;  // fifo/rr priority
    bool operator==(const PolicySpec&) const = default;
};

struct BetweenSpec {
    BetweenKind kind = BetweenKind::none;
    int64_t sleep_ns = 0;  // the duration of sleep: and of spin:
    bool operator==(const BetweenSpec&) const = default;
};

struct ThreadSpec {
    int count = 1;
    StartSpec start;
    uint64_t stack_size = 0;  // 0: the launcher's default
    uint64_t guard_size = 0;  // 0: the launcher's default (no key: set by mimic = "python")
    SignalMaskSpec signal_mask;
    AffinitySpec affinity;
    PolicySpec policy;
    BetweenSpec between;
    // What each gap between a worker's copies is made of (docs/results/gap-after-a-call.md):
    // host-clock stamps where a Python call returns into and leaves the interpreter, and the
    // worker thread's counters over the gap (system/thread_counters.hpp). Off: not a cost.
    bool gap_stages = false;
    bool gap_counters = false;
    bool operator==(const ThreadSpec&) const = default;
};

// The text of a structured value as a file writes it: "staggered:2ms", "fifo:10", "sleep:1ms".
std::string to_string(const StartSpec& s);
std::string to_string(const PolicySpec& p);
std::string to_string(const BetweenSpec& b);

}  // namespace xfer
