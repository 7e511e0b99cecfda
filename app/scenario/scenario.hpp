#pragma once
// A validated scenario and the concrete runs it expands into. Every value here is resolved:
// defaults filled in, units converted. See docs/scenarios.md for the file format.
#include <cstdint>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace xfer {

enum class Direction { h2d, d2h, d2d, h2h, p2p };
enum class HostMemoryKind { pageable, hugepage, pinned, registered, write_combined, numa };
enum class FirstTouch { worker, main, none };
enum class CopyApi { sync, async };
enum class StreamKind { legacy, per_thread, non_blocking };
enum class TimingMode { auto_, host, events, cupti };
// CUDA context of a worker's copies: the device's primary context (shared by the process's
// threads) or one the worker creates for itself (driver API).
enum class ContextKind { primary, per_worker };
// How the bytes of an h2d/d2h copy move (CUDA backend): the driver's own path; xferlab's staging
// engine (pageable <-> page-locked chunks on helper threads, overlapped with the DMA); or the
// worker's buffer registered (cudaHostRegister) once before the timed copies.
enum class CopyPath { driver, staged, register_ };
enum class StagingAffinity { gpu_local, none };
// How the staging helpers write the chunk they copy: ordinary (cached) stores, or streaming
// (non-temporal) ones that skip the read-for-ownership of the destination line; auto picks per
// direction (backend/staging_stores.hpp).
enum class StagingStores { auto_, cached, streaming };
// Which CUDA streams carry the staging helpers' DMAs: one per helper (chunks of different helpers
// share the copy engine and finish together), or one per engine (chunks finish in the order they
// were started).
enum class StagingStreams { per_helper, one };
// How a staging helper waits for its DMA: spinning in cudaEventSynchronize (the runtime's default
// with few contexts; the helper keeps its CPU) or blocking (cudaEventBlockingSync: it sleeps and
// leaves the CPU to the other helpers' copies).
enum class StagingWait { spin, block };
enum class StartKind { barrier, free, staggered };
enum class SignalMaskKind { inherit, block_all, unblock_all, list };
enum class AffinityKind { none, compact, scatter, gpu_local, list };
enum class SchedPolicy { other, batch, idle, fifo, rr };
enum class BetweenKind { none, yield, sleep, spin };
enum class GilPolicy { release, hold };

struct HostMemory {
    HostMemoryKind kind = HostMemoryKind::pageable;
    int numa_node = -1;  // for kind == numa
};

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
};
// [staging] chunk = "auto": the chunk for a staged copy of `bytes` in `direction`, at most the
// copy. Chosen on three H200 machines (docs/results/h200-cure.md), DMAs on the engine's one
// stream: to the device 4 MiB (larger DMAs: 0.93-0.94x pinned against 0.91-0.92x with 2 MiB;
// 8 MiB fell to 0.66x); from the device 2 MiB (4 MiB swung between 0.79x and 0.93x from trial
// to trial, 2 MiB held 0.91-0.92x).
constexpr uint64_t kStagingChunkToDevice = uint64_t(4) << 20;
constexpr uint64_t kStagingChunkFromDevice = uint64_t(2) << 20;
uint64_t default_staging_chunk(Direction direction, uint64_t bytes);

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
};

struct StartSpec {
    StartKind kind = StartKind::barrier;
    int64_t stagger_ns = 0;  // for staggered: worker i starts i * stagger_ns after the barrier
};

struct SignalMaskSpec {
    SignalMaskKind kind = SignalMaskKind::inherit;
    std::vector<int> signals;  // for list: signals to block
};

struct AffinitySpec {
    AffinityKind kind = AffinityKind::none;
    std::vector<int> cpus;  // for list: worker i gets cpus[i % size]
};

struct PolicySpec {
    SchedPolicy policy = SchedPolicy::other;
    int priority = 0;  // fifo/rr priority
};

struct BetweenSpec {
    BetweenKind kind = BetweenKind::none;
    int64_t sleep_ns = 0;  // the duration of sleep: and of spin:
};

struct ThreadSpec {
    int count = 1;
    StartSpec start;
    uint64_t stack_size = 0;  // 0: the launcher's default
    uint64_t guard_size = 0;  // 0: the launcher's default (set by mimic = "python")
    SignalMaskSpec signal_mask;
    AffinitySpec affinity;
    PolicySpec policy;
    BetweenSpec between;
};

// One [[run]] entry: which launcher, and what only this run sets.
struct RunSpec {
    std::string launcher = "host";  // host | openmp | python | host+gil | process | mpi
    std::string label;              // optional; a label is derived when empty
    std::string payload;            // python payload file (python launcher, process+payload)
    // Where `payload` was written (checked against the payload folders after loading).
    bool payload_set = false;
    int payload_line = 0;
    int payload_column = 0;
    GilPolicy gil = GilPolicy::release;
    std::string mimic;  // "" or "python": host threads take a Python thread's attributes
    nlohmann::json overrides = nlohmann::json::object();  // dotted keys set inside [[run]]
    // The run's own payload parameters: merged over [params] (RFC 7396, key by key; a table
    // merges into a table, anything else replaces).
    nlohmann::json params = nlohmann::json::object();
};

// One concrete run of the plan: a launcher with every knob resolved.
struct Run {
    int index = 0;
    std::string label;
    std::string backend;  // auto | host | cuda (as written; resolved when the run starts)
    RunSpec spec;
    TransferSpec transfer;
    ThreadSpec threads;
    int64_t timeout_ns = 0;                            // 0: none
    nlohmann::json params = nlohmann::json::object();  // [params] for payloads (ctx.params)
    std::map<std::string, std::string> sweep_point;
    std::string scaling_key;  // runs equal but for threads.count share it
    // Trials (scenario.trials): the same run repeated; its trials share `label`. 1-based.
    int trial = 1;
    // Position in the plan of one trial ([[run]] x [sweep] order), equal for a run's trials:
    // reports list runs in this order and take the first at a sweep point as its baseline.
    int position = 0;
    // The [[run]]'s label without the sweep point's values: what scenario.baseline names.
    std::string base_label;
};

// scenario.order: how the trials of the plan's runs follow each other.
enum class TrialOrder { interleaved, shuffled, grouped };

struct Scenario {
    std::filesystem::path source;  // the file it came from
    std::string name;
    std::string description;
    std::string backend = "auto";
    int64_t timeout_ns = 0;
    // Every run is run `trials` times, in `order`; a shuffled order draws from `seed` (chosen
    // when the file leaves it out, and recorded in the results). See docs/scenarios.md.
    int trials = 1;
    TrialOrder order = TrialOrder::interleaved;
    uint64_t seed = 0;
    bool seed_set = false;
    // The [[run]] label each run is compared with at its own sweep point ("": the first).
    std::string baseline;
    TransferSpec transfer;
    ThreadSpec threads;
    std::vector<RunSpec> runs;
    // [sweep]: key -> values (as TOML values rendered to JSON), in file order.
    std::vector<std::pair<std::string, nlohmann::json>> sweep;
    nlohmann::json params = nlohmann::json::object();
    // What was changed in the input to use it, one sentence each (a --set flag that was not
    // UTF-8): printed when the scenario loads and kept in the results for the report.
    std::vector<std::string> notes;
    nlohmann::json resolved;  // the whole scenario, defaults filled in, as written to results
};

// Names as written in files ("h2d", "pageable", "numa:1", ...).
std::string to_string(Direction d);
std::string to_string(const HostMemory& m);
std::string to_string(FirstTouch f);
std::string to_string(CopyApi a);
std::string to_string(StreamKind s);
std::string to_string(TimingMode t);
std::string to_string(ContextKind c);
std::string to_string(CopyPath p);
std::string to_string(StagingAffinity a);
std::string to_string(StagingStores s);
std::string to_string(StagingStreams s);
std::string to_string(StagingWait w);
std::string to_string(GilPolicy g);
std::string to_string(SchedPolicy p);
std::string to_string(TrialOrder o);

}  // namespace xfer
