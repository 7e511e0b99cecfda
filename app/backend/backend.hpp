#pragma once
// The Backend interface: who allocates the buffers and performs the copy. Host backend: memcpy
// between host buffers. CUDA backend: cudaMemcpy[Async] with device-side timestamps.
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "backend/run_here.hpp"
#include "results/device_copy.hpp"
#include "results/helper_thread.hpp"
#include "results/record.hpp"
#include "settings/specs.hpp"
#include "system/thread_info.hpp"

namespace xfer {

// What the backend knows about one copy besides the host clock, which the caller takes.
struct CopyOutcome {
    uint32_t correlation = 0;      // joins the record to device timestamps later (CUPTI)
    int64_t device_start_ns = -1;  // filled when known right away (CUDA events), host clock
    int64_t device_end_ns = -1;
    DeviceTiming device_timing = DeviceTiming::none;
};

// What a payload's w.timed() block did on the worker's thread, as the backend's tracer saw it.
struct TimedBlockCalls {
    int calls = -1;    // memcpy API calls the block made; -1: nothing traced the block
    int gil_held = 0;  // ... of them made while the thread held the GIL
};

// One worker's buffers and copy initiator. Created (allocated, first-touched per policy) on the
// main thread by Backend::prepare; then used from the worker's thread only.
class WorkerTransfer {
  public:
    virtual ~WorkerTransfer() = default;
    // Called once on the worker's own thread before the start barrier: select the device,
    // create streams, first-touch when first_touch = worker. Never timed.
    virtual void attach_thread() {}
    // Exactly one copy of bytes() bytes; returns when the bytes have arrived. This is the only
    // thing timed; it must not allocate.
    virtual CopyOutcome copy() = 0;
    // Checks every byte of the destination against the source pattern after the copies.
    // Returns the offset of the first mismatch, or -1.
    virtual int64_t verify() = 0;
    // Poisons the destination so that a copy that did not happen cannot verify.
    virtual void poison_destination() = 0;
    // A payload's `with w.timed(...)` block on the worker's thread (the payload copies through
    // its own framework): every device copy the thread issues until end_timed_block() is joined
    // to the returned tag, which the block's record carries as its correlation id (0: nothing
    // traces device copies here). Not xferlab's routine: it may allocate.
    virtual uint32_t begin_timed_block() { return 0; }
    virtual TimedBlockCalls end_timed_block() { return {}; }
    virtual int device() const { return -1; }
    virtual uint64_t bytes() const = 0;
    // The host buffer a copy reads or writes (the source to a device, the destination from
    // one), of bytes() bytes; nullptr where no host memory takes part. Where its pages are
    // (Record::host_node) is sampled once the worker has attached.
    virtual const void* host_side() const { return nullptr; }
    // Test hook: flips one destination byte (proves verification catches corruption).
    virtual void corrupt_destination_for_test(uint64_t offset) = 0;
};

class Backend {
  public:
    // What a run leaves with the backend, handed over in one piece when it ends.
    struct RunEnd {
        // Facts worth printing with the run (device timestamps joined or dropped, peer access,
        // timing fallbacks).
        std::vector<std::string> notes;
        // Threads the backend ran besides the workers (the staging engine's helpers), read
        // inside each thread.
        std::vector<HelperThread> helper_threads;
        // Every device copy joined to a payload's w.timed() block.
        std::vector<DeviceCopy> device_copies;
        // Why the device timestamps could not be joined into the records; "" when they were
        // (or when nothing records them).
        std::string failure;
    };

    virtual ~Backend() = default;
    virtual std::string name() const = 0;
    // Memory (host bytes, device bytes) a run with this transfer and worker count will need,
    // for the preflight before anything is allocated. `worker_processes`: every worker runs in
    // a process of its own (launchers "process" and "mpi"), with its own per-process state
    // (the staging engines).
    struct Need {
        uint64_t host_bytes = 0;
        uint64_t device_bytes = 0;
    };
    virtual Need memory_needed(const TransferSpec& t, int workers,
                               bool worker_processes = false) const = 0;
    // Whether a run of `t` with `workers` workers can run on this backend here, before anything
    // is allocated: every requirement of the backend in one place (a setting it cannot model,
    // devices it needs, device memory, a tracer). Never throws. The preflight refuses a plan
    // with a refused run and skips what is skipped; the runner asks again before each run.
    virtual RunHere can_run(const TransferSpec& t, int workers) const = 0;
    // Allocates worker `worker`'s buffers. Runs on the main thread; never timed.
    virtual std::unique_ptr<WorkerTransfer> prepare(const TransferSpec& t, int worker) = 0;
    // Brackets a run: start device tracing; at the end, flush it, fill device times of
    // `records` (joined by correlation id) and hand over what the run left (the backend keeps
    // nothing of it). The host backend does nothing.
    virtual void begin_run(const TransferSpec&) {}
    virtual RunEnd end_run(std::vector<Record>& records) {
        (void)records;
        return {};
    }
    // Devices and topology for `xferlab devices` and results.json.
    virtual nlohmann::json describe() const = 0;
};

// Backends compiled in, and whether each can run here.
struct BackendAvailability {
    std::string name;
    bool available = false;
    std::string reason;  // why not, when unavailable; device summary when available
};
std::vector<BackendAvailability> list_backends();

// make_backend's refusal of a backend that cannot run on this machine: "backend cuda is
// unavailable: <reason>". The backend and the reason apart, so that a caller refusing many runs
// for it can say so once.
class BackendUnavailable : public std::runtime_error {
  public:
    BackendUnavailable(std::string backend, std::string reason);
    std::string backend;  // "cuda"
    std::string reason;   // "no CUDA driver loaded (...)"
};

// "auto" picks cuda when a device answers, else the host backend standing in for it (and `note`
// says so): that one skips the runs only cuda can run (make_host_backend). "host"/"cuda" pick
// that one or throw BackendUnavailable with the reason it is unavailable.
std::unique_ptr<Backend> make_backend(const std::string& name, std::string* note = nullptr);

}  // namespace xfer
