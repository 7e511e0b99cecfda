#pragma once
// The staging engine of transfer.path = "staged": moves a copy between pageable host memory and
// a device through page-locked chunk buffers, so that the DMA engine always reads or writes
// page-locked memory (the pinned rate) while helper threads do the pageable side with memcpy.
//
// One engine per device per process, shared by every worker of the process that copies to the
// device. A worker's copy is one request, cut into chunks; helper threads take chunks from the
// active requests in turn (so concurrent workers share the link instead of queueing behind each
// other) and keep up to `buffers` chunks each in flight:
//   to the device:   copy pageable -> buffer, then the DMA buffer -> device
//   from the device: the DMA device -> buffer, then copy buffer -> pageable
// (each copy with cached or streaming stores, StagingConfig::copy_in / copy_out)
// A buffer is reused only after its DMA finished (StagingDevice::wait). The worker's call
// returns when every chunk of its request has arrived: the same contract as a synchronous copy.
//
// The device side is an interface so that the chunking and scheduling are tested without a GPU
// (tests/unit/test_backend_staging.cpp uses a fake whose DMA happens only at wait()).
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "memory/streaming_copy.hpp"
#include "results/helper_thread.hpp"

namespace xfer {

// Page-locked chunk buffers and asynchronous DMA for one device. Calls with a helper index come
// from that helper's own thread only.
class StagingDevice {
  public:
    virtual ~StagingDevice() = default;
    // On the helper's thread before its first chunk: bind the device. Never timed.
    virtual void attach_helper(int helper) = 0;
    // `chunk` bytes of page-locked memory, slot `slot` of helper `helper`.
    virtual std::byte* buffer(int helper, int slot) = 0;
    // Starts the DMA of `len` bytes from page-locked `host_src` to `device_dst` (or from
    // `device_src` into page-locked `host_dst`) on the helper's stream, recorded against the
    // slot; returns at once. The host side is the slot's buffer, or the worker's own memory
    // when that is page-locked already.
    virtual void start_to_device(int helper, int slot, void* device_dst, const std::byte* host_src,
                                 uint64_t len) = 0;
    virtual void start_from_device(int helper, int slot, std::byte* host_dst,
                                   const void* device_src, uint64_t len) = 0;
    // Returns when the slot's last DMA has finished. Throws on a device error.
    virtual void wait(int helper, int slot) = 0;
    // Whether the slot's last DMA has finished, without waiting; false when not known (errors
    // are wait()'s to report). Only for the engine's accounting (link_starved_ns).
    virtual bool finished(int /*helper*/, int /*slot*/) { return false; }
    // The CUPTI correlation id of the last DMA this thread started (0: not traced).
    virtual uint32_t last_correlation() { return 0; }
};

struct StagingConfig {
    int device = 0;            // for messages
    int threads = 1;           // helper threads (resolved: at least 1)
    int buffers = 2;           // chunk buffers per helper
    uint64_t chunk = 8 << 20;  // bytes per chunk (to the device; and back, unless set below)
    std::vector<int> cpus{};   // helper affinity; empty: none
    // How a helper writes what it copies ([staging] stores, backend/staging_stores.hpp):
    // pageable -> buffer on the way to the device, buffer -> pageable on the way back.
    HostStores copy_in = HostStores::cached;
    HostStores copy_out = HostStores::cached;
    // [staging] taper: the pipeline fills and drains faster. Buffers per helper: a bounced
    // copy's first chunk of each helper is a quarter chunk, and its last chunks shrink so that
    // the helpers finish together (chunk_length). Shared buffers: a buffer whose pieces are
    // handed out while no DMA is in flight or starting (the link idle: a copy's first buffers
    // to the device, its last from it) is cut over all the active helpers instead of into
    // chunks (staging_piece_length), so that the link waits for one helper's share of a buffer
    // rather than a whole chunk.
    bool taper = false;
    // Chunks of page-locked memory (DMA'd in place, no bounce): 0 = one per helper (the fewest
    // DMA set-ups that keep every helper's stream busy); otherwise this size, so that the DMA
    // side of a bounced copy can be measured without its host copies ([staging] chunk given).
    uint64_t page_locked_chunk = 0;
    // Bytes per chunk from the device (0: `chunk`): one engine serving both directions, as the
    // Python module's does, can use each direction's best size (scenario/staging_defaults.cpp).
    // Buffers hold the larger of the two.
    uint64_t chunk_from_device = 0;
    // How many of the `threads` helpers take work, asked at the start of every request on the
    // worker's thread (so: thread-safe and cheap); the answer is clamped to 1..threads. The
    // others keep their buffers and sleep until a later request lets them in. Empty: all.
    // resolve_staging sets it for threads = "auto" from the machine's engine registry
    // (backend/staging_registry.hpp), so that engines in several processes share the CPUs.
    std::function<int()> active_helpers{};
    // [staging] dma: bytes per DMA of a bounced copy. 0, or no more than a chunk: each helper
    // DMAs its own chunks from its own buffers. Larger: the page-locked memory is cut into
    // buffers of this size instead (staging_layout) that the helpers fill, or empty, together, a
    // chunk each, so that DMAs grow without more page-locked memory in flight.
    // page_locked_chunk does not apply then.
    uint64_t dma_chunk = 0;
    // Shared buffers only: a helper with nothing to take while a request is active spins until
    // the engine has news (a DMA done, a unit freed) instead of sleeping, so that a buffer's
    // pieces are taken as soon as its DMA ends rather than after the helpers' wake-ups
    // ([staging] wait = "spin"; "block" sleeps).
    bool idle_spin = true;
    // Shared buffers with idle_spin: once the engine's last buffer is freed, idle helpers go on
    // spinning this long before they sleep, so that a copy that follows at once finds them
    // awake instead of waking them (Engine(linger_us=...); 0: sleep at once). Not counted as
    // busy: the helpers' accounting shows copies, DMAs and waits only.
    int64_t linger_ns = 0;
    // Shared buffers: a bounced copy's first DMAs and its last are shorter (staging_unit_length),
    // each cut over the active helpers, so that the link starts after a small buffer is filled
    // (to the device) and the copy ends soon after its last DMA (from it): the whole-buffer fill
    // and drain that a copy pays once shrink to a small buffer's (Engine(ramp=...)).
    bool ramp = false;
};

// Whether `c` has the helpers share DMA-sized buffers (StagingConfig::dma_chunk).
bool staging_shares_buffers(const StagingConfig& c);

// The page-locked buffers a StagingDevice allocates for `c`, addressed (owner, slot): one per
// helper and slot (owners = threads, slots = buffers, a chunk each), or, when the helpers share
// them, owner 0's `slots` buffers of dma_chunk bytes, as many as the helpers' buffers would hold
// (at least 2).
struct StagingLayout {
    int owners = 1;
    int slots = 1;
    uint64_t bytes = 0;
};
StagingLayout staging_layout(const StagingConfig& c);

// The length of the chunk that starts at `offset` of a `bytes`-long copy bounced through
// buffers of `chunk` bytes by `threads` helpers. Without taper: `chunk` (the rest at the end).
// With taper, the pipeline fills and drains faster: the first `threads` chunks (one per
// helper) are chunk / 4, so the DMA starts after a quarter chunk is copied instead of a whole
// one; once no more than `threads` whole chunks are left, each chunk is that remainder split
// over the helpers (never below chunk / 4), so no helper copies out a last whole chunk alone.
// Lengths are whole 4 KiB pages except the copy's last.
uint64_t staging_chunk_length(uint64_t offset, uint64_t bytes, uint64_t chunk, int threads,
                              bool taper);

// Shared buffers: the piece a helper copies of a `len`-byte buffer. `chunk`, unless `split`
// (taper, with the link idle): the buffer cut evenly over `helpers`, in whole 4 KiB pages, no
// smaller than kMinTaperPiece and no larger than `chunk`.
inline constexpr uint64_t kMinTaperPiece = uint64_t(64) << 10;
uint64_t staging_piece_length(uint64_t len, uint64_t chunk, int helpers, bool split);

// Shared buffers: the DMA that starts at `offset` of a `bytes`-long copy through buffers of `dma`
// bytes. Without ramp: `dma` (the rest at the end). With ramp: the first is dma /
// kRampDivisor and each next one doubles up to `dma`; near the end each takes half of what is
// left, down to dma / kRampDivisor again (the last one at most 1.5 times that). Whole 4 KiB pages
// except the copy's last.
inline constexpr uint64_t kRampDivisor = 8;
uint64_t staging_unit_length(uint64_t offset, uint64_t bytes, uint64_t dma, bool ramp);

// A chunk's CUPTI correlation id and the id of the request it belongs to: the report joins every
// chunk's device interval to the worker's record (first start to last end).
using CorrelationAlias = std::pair<uint32_t, uint32_t>;

// What an engine has done since start(), summed over its helpers; readable while it runs.
struct StagingTotals {
    uint64_t requests = 0;         // copies asked for
    uint64_t to_device_bytes = 0;  // of finished chunks, by direction
    uint64_t from_device_bytes = 0;
    uint64_t direct_bytes = 0;  // page-locked memory DMA'd in place (no bounce)
    uint64_t chunks = 0;        // finished chunks
    uint64_t pieces = 0;        // shared buffers: the helpers' copies into or out of them
    HelperWork work;            // bounced bytes and where the helpers' time went
    int64_t busy_ns = 0;        // helpers busy (from taking work to going idle)
    // A copy's edges, summed over the `edged` requests that had a DMA: from the call to its
    // first DMA issued (the pipeline's fill: to the device, the first buffer's copy) and from
    // a helper seeing its last DMA done to the caller woken (the drain: from the device, the
    // last buffer's copy out). What a copy costs beyond its bytes is about their sum. Between
    // them, from its first DMA issued to its last seen done: the span in which the link carried
    // it (against its bytes at the pinned rate: whether the link idled mid-copy).
    uint64_t edged = 0;
    int64_t to_first_dma_ns = 0;
    int64_t after_last_dma_ns = 0;
    int64_t dma_span_ns = 0;
    // Shared buffers: time in which a buffer held a copy's bytes (filling, or waiting to be
    // emptied) while every DMA the engine had issued was finished (StagingDevice::finished, asked
    // whenever a piece is done or a buffer changes hands, so a span starts up to a piece's time
    // late): the link waited for the helpers (to the device: the fill; from it: the copies out,
    // which keep every buffer from the next DMA). Includes the fill before a copy's first DMA.
    int64_t link_starved_ns = 0;
};

// The larger chunk of `c`'s two directions: the size of one buffer.
uint64_t staging_buffer_bytes(const StagingConfig& c);
// The chunk of one direction (chunk_from_device when set and from the device).
uint64_t staging_chunk_of(const StagingConfig& c, bool to_device);

class StagingEngine {
  public:
    StagingEngine(StagingConfig config, std::unique_ptr<StagingDevice> device);
    ~StagingEngine();  // stops the helpers
    StagingEngine(const StagingEngine&) = delete;
    StagingEngine& operator=(const StagingEngine&) = delete;

    // Starts the helper threads and waits until each has attached; throws the first attach
    // failure (the helpers are stopped again). Outside the timed copies.
    void start();
    // Lets the helpers finish what is in flight and joins them. Idempotent.
    void stop();

    // On a worker's thread: moves `bytes` bytes and returns when all have arrived. Throws
    // std::runtime_error naming the device, the worker and the chunk's offset when a chunk
    // failed (the rest of the request is abandoned; other requests go on). Does not allocate.
    // `tag` identifies the request in correlations(). `page_locked`: the host memory is
    // page-locked already, so chunks are DMA'd straight from or to it (no bounce through a
    // buffer): what is left is the engine's own cost, chunking and scheduling.
    void to_device(void* device_dst, const std::byte* host_src, uint64_t bytes, int worker,
                   uint32_t tag, bool page_locked = false);
    void from_device(std::byte* host_dst, const void* device_src, uint64_t bytes, int worker,
                     uint32_t tag, bool page_locked = false);

    const StagingConfig& config() const { return config_; }
    // The helpers' ThreadInfo, read inside each helper when it started, and their busy spans.
    std::vector<HelperThread> helper_threads() const;
    // After stop(): every traced chunk's correlation id with its request's tag.
    std::vector<CorrelationAlias> correlations() const;
    // The traced chunks of the requests tagged `tag` (finished ones), taken out of the engine:
    // a long-lived engine hands each request's ids on as it ends.
    std::vector<CorrelationAlias> take_correlations(uint32_t tag);
    // After stop(): chunks started since start() (traced or not).
    uint64_t chunks_issued() const;
    // Running totals, safe to read at any time (finished chunks, closed busy spans).
    StagingTotals totals() const;
    // The helpers the latest request let take work (config().threads before the first).
    int active_helpers() const;

  private:
    struct Request;
    struct Chunk {
        Request* request = nullptr;
        uint64_t offset = 0;
        uint64_t len = 0;
        HelperWork work;             // this chunk's share, added to the totals when it retires
        int64_t dma_started_ns = 0;  // its DMA issued (now_ns; 0: none)
        int64_t dma_done_ns = 0;     // a helper saw its DMA done
    };
    struct Helper;
    // Shared-buffer mode (staging_shares_buffers): one DMA-sized buffer and the request range
    // it holds; the helpers copy its chunks ("pieces") in or out, and whoever finishes the last
    // piece starts (to the device) or whoever waited for the DMA hands out (from the device).
    // Its range of the request (offset, len), the helpers' work on it and its DMA's times are
    // a Chunk's: it retires as one.
    struct Unit : Chunk {
        enum class State { free, filling, starting, in_flight, waiting, ready };
        State state = State::free;
        uint64_t handed = 0;  // bytes of pieces handed out (filling, ready)
        uint64_t done = 0;    // bytes of pieces copied
        uint64_t seq = 0;     // order opened: pieces and waits go to the oldest first
        uint64_t piece = 0;   // bytes per piece (staging_piece_length), set when it fills or
                              // becomes ready
    };
    struct UnitTask {
        enum class Kind { piece, start, wait } kind = Kind::piece;
        int unit = 0;
        uint64_t offset = 0;  // piece: in the unit
        uint64_t len = 0;
    };

    void run_request(Request& r);
    void helper_main(int index);
    bool take_chunk(Chunk& c);  // under mutex_
    void issue(Helper& h, int slot, const Chunk& c);
    void complete(Helper& h, int slot, const Chunk& c);
    void retire(const Chunk& c, const std::string& error);
    void retire_locked(const Chunk& c, const std::string& error);
    void go_idle_locked(Helper& h, int64_t& busy_since);
    // Under mutex_: there may be work for the helpers (news for the spinning ones too).
    void wake_helpers_locked();
    // Shared-buffer mode (staging_units.cpp).
    void run_shared(Helper& h);
    bool take_unit_task(UnitTask& t);  // under mutex_
    // Under mutex_: the piece size of `u` when its pieces are handed out now.
    uint64_t unit_piece_locked(const Unit& u) const;
    void run_unit_task(Helper& h, const UnitTask& t);
    void start_unit_dma(Helper& h, int unit);
    // Retires the unit's range (its bytes counted unless `error`) and frees the unit.
    void free_unit_locked(Unit& u, const std::string& error);
    // Under mutex_, after a unit changed state or a piece was done: opens or closes a span of
    // StagingTotals::link_starved_ns.
    void track_link_locked();
    // Under mutex_: a unit task's work, into its helper's totals and its unit's (which the
    // engine's totals get when the unit retires).
    static void credit_locked(Helper& h, Unit& u, const HelperWork& work);
    std::string unit_error(const Unit& u, const char* what) const;
    void count_locked(const Chunk& c);  // a finished chunk into totals_
    std::string chunk_error(const Chunk& c, const char* what) const;

    StagingConfig config_;
    std::unique_ptr<StagingDevice> device_;
    std::vector<std::unique_ptr<Helper>> helpers_;
    std::vector<std::thread> threads_;

    mutable std::mutex mutex_;
    std::condition_variable work_;      // helpers: a request arrived, or stop
    std::atomic<uint64_t> news_{0};     // counts wake_helpers_locked(): what spinners watch
    std::condition_variable attached_;  // start(): a helper attached (or failed to)
    Request* first_ = nullptr;          // active requests, a ring served in turn
    Request* cursor_ = nullptr;         // the request the next chunk comes from
    bool stopping_ = false;
    bool running_ = false;
    int active_ = 1;           // helpers [0, active_) take chunks (StagingConfig::active_helpers)
    std::vector<Unit> units_;  // shared-buffer mode only
    uint64_t unit_seq_ = 0;
    int64_t last_unit_freed_ns_ = 0;  // StagingConfig::linger_ns counts from here
    int64_t starved_since_ = -1;      // track_link_locked(): the link starved since (-1: not)
    int attached_count_ = 0;
    std::string attach_error_;
    StagingTotals totals_;  // guarded by mutex_
};

}  // namespace xfer
