#pragma once
// The values of the [transfer], [staging] and [threads] keys, every default filled in: what a
// scenario sets by default and what one run ran with. Their keys: settings/setting_keys.hpp.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "settings/enums.hpp"

namespace xfer {

struct HostMemory {
    HostMemoryKind kind = HostMemoryKind::pageable;
    int numa_node = -1;  // for kind == numa
    bool operator==(const HostMemory&) const = default;
};

// "pageable", "numa:1": as a file writes it.
std::string to_string(const HostMemory& m);

// [staging]: the staging engine of transfer.path = "staged" (one per device per process).
struct StagingSpec {
    int threads = 0;  // helper threads; 0: auto (from the device's local CPUs and a memcpy probe)
    uint64_t chunk = 0;  // bytes per chunk; 0: auto (default_staging_chunk)
    int buffers = 2;     // page-locked chunk buffers per helper thread
    StagingAffinity affinity = StagingAffinity::gpu_local;
    StagingStores stores = StagingStores::auto_;
    bool taper = false;  // smaller first and last chunks (backend/staging_engine.hpp)
    StagingStreams streams = StagingStreams::one;  // measured faster (docs/results/h200-cure.md)
    StagingWait wait = StagingWait::spin;
    // Bytes per DMA of a bounced copy; 0 ("chunk"): one chunk per DMA. Larger: the helpers fill
    // DMA-sized shared buffers together (StagingConfig::dma_chunk).
    uint64_t dma = 0;
    bool operator==(const StagingSpec&) const = default;
};
// [staging] chunk = "auto": the chunk for a staged copy of `bytes` in `direction`, at most the
// copy. Chosen on three H200 machines (docs/results/h200-cure.md), DMAs on the engine's one
// stream: to the device 4 MiB (larger DMAs: 0.93-0.94x pinned against 0.91-0.92x with 2 MiB;
// 8 MiB fell to 0.66x); from the device 2 MiB (4 MiB swung between 0.79x and 0.93x from trial
// to trial, 2 MiB held 0.91-0.92x).
constexpr uint64_t kStagingChunkToDevice = uint64_t(4) << 20;
constexpr uint64_t kStagingChunkFromDevice = uint64_t(2) << 20;
inline uint64_t default_staging_chunk(Direction direction, uint64_t bytes) {
    const uint64_t chunk =
        direction == Direction::d2h ? kStagingChunkFromDevice : kStagingChunkToDevice;
    return std::min(chunk, std::max<uint64_t>(bytes, 1));
}

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
    StagingSpec staging;
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
    bool operator==(const ThreadSpec&) const = default;
};

// The text of a structured value as a file writes it: "staggered:2ms", "fifo:10", "sleep:1ms".
std::string to_string(const StartSpec& s);
std::string to_string(const PolicySpec& p);
std::string to_string(const BetweenSpec& b);

}  // namespace xfer
