#pragma once
// CUPTI activity tracing of memory copies (CUPTI_ACTIVITY_KIND_MEMCPY and MEMCPY2, the records
// nvprof printed), and the correlation id of each copy the calling thread issues.
//
// CUPTI state is per process, so there is one tracer. Life cycle per run:
//   setup()  once: buffer callbacks, the timestamp callback, the runtime-API subscriber
//   start()  before the workers start (Backend::begin_run)
//   ... copies: each cudaMemcpy* call stores its correlation id in a thread-local slot
//   stop()   after the workers finished (Backend::end_run): flush, collect, disable
// Nothing here runs inside the timed copy except the subscriber's callback (one store to a
// thread-local on entry to each cudaMemcpy* call) and the two accessors below.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace xfer::cuda {

// One memcpy activity record, reduced to what xferlab joins and reports. Timestamps are in
// CUPTI's clock (see TraceResult::clock_offset_ns).
struct MemcpyActivity {
    uint32_t correlation = 0;          // driver-level correlation id
    uint32_t runtime_correlation = 0;  // runtime API call's id (0 in MEMCPY2/peer records)
    uint64_t start = 0;
    uint64_t end = 0;
    uint64_t bytes = 0;
    uint32_t device = 0;
    uint32_t context = 0;
    uint32_t stream = 0;
    uint8_t copy_kind = 0;  // CUpti_ActivityMemcpyKind
    uint8_t src_kind = 0;   // CUpti_ActivityMemoryKind
    uint8_t dst_kind = 0;
    bool peer = false;  // a MEMCPY2 (peer-to-peer) record
};

struct TraceResult {
    std::vector<MemcpyActivity> copies;
    uint64_t dropped = 0;             // records CUPTI reported as dropped (no buffer space)
    uint64_t incomplete = 0;          // records without timestamps (start = end = 0)
    int extra_buffers = 0;            // buffers allocated during the run (pool exhausted)
    int64_t clock_offset_ns = 0;      // CLOCK_MONOTONIC = CUPTI timestamp + offset
    int64_t offset_begin_ns = 0;      // the offset sampled at start() and at stop(): they differ
    int64_t offset_end_ns = 0;        // only if a clock was stepped during the run
    int64_t realtime_offset_ns = 0;   // CLOCK_MONOTONIC - CLOCK_REALTIME, sampled at stop()
    bool timestamp_callback = false;  // CUPTI takes its timestamps from our CLOCK_MONOTONIC
};

// What a timed block's thread did between begin_capture and end_capture.
struct CapturedCalls {
    int calls = 0;     // memcpy API calls (outermost: a runtime call's driver calls are in it)
    int gil_held = 0;  // ... made while the calling thread held the GIL
};

class CuptiTracer {
  public:
    static CuptiTracer& instance();

    // One-time set-up; returns "" when tracing is usable, else why not. Idempotent.
    const std::string& setup();
    bool usable() { return setup().empty(); }
    // setup() ran and tracing is usable (does not set it up).
    bool ready() const { return setup_done_ && setup_error_.empty(); }
    bool active() const { return active_; }
    bool timestamp_callback() const { return timestamp_callback_; }

    // Enables memcpy activity records and the correlation callbacks. Throws on CUPTI errors.
    void start();
    // Flushes every buffer, disables tracing and returns what was recorded since start().
    TraceResult stop();

    // The correlation id of the calling thread's last cudaMemcpy* call while tracing is active
    // (0: none since the last reset).
    static void reset_last_correlation() noexcept;
    static uint32_t last_correlation() noexcept;

    // A payload's w.timed() block on the calling thread: every memcpy call (runtime or driver
    // API, from any library in the process) the thread makes until end_capture() is counted
    // and its correlation id aliased to `tag`, which take_capture_aliases() hands out.
    static void begin_capture(uint32_t tag);
    static CapturedCalls end_capture();
    // (activity correlation id, block tag) of every block ended since the last call.
    static std::vector<std::pair<uint32_t, uint32_t>> take_capture_aliases();
    // The tag of the block open on the calling thread (0: none), and (activity correlation id,
    // block tag) pairs of copies made for it elsewhere (the staging engine's helpers), handed
    // out by take_capture_aliases() with the block's own.
    static uint32_t open_capture_tag() noexcept;
    static void join_to_capture(const std::vector<std::pair<uint32_t, uint32_t>>& aliases);

  private:
    CuptiTracer() = default;
    void enable_callbacks(bool on);

    bool setup_done_ = false;
    std::string setup_error_;
    bool timestamp_callback_ = false;
    bool active_ = false;
    void* subscriber_ = nullptr;  // CUpti_SubscriberHandle
    int64_t offset_begin_ = 0;
};

}  // namespace xfer::cuda
