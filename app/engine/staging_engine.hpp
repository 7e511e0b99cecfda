#pragma once
// The staging engine: moves a copy between pageable host memory and a device through
// page-locked buffers, so that the DMA engine always reads or writes page-locked memory (the
// pinned rate) while helper threads do the pageable side with memcpy. What `import xferlab`
// runs, and what the harness's transfer.path = "staged" measures.
//
// One engine per device per process, shared by every thread that copies to the device. A copy
// is one request, cut into DMAs; helper threads take work from the active requests in turn (so
// concurrent callers share the link instead of queueing behind each other):
//   to the device:   copy pageable -> buffer, then the DMA buffer -> device
//   from the device: the DMA device -> buffer, then copy buffer -> pageable
// (each copy a memcpy). A buffer is reused only after its DMA finished (StagingDevice::wait). The
// caller returns when every byte of its request has arrived: the same contract as a synchronous
// copy.
//
// Two layouts (staging_shares_buffers): each helper with buffers of its own, one DMA per chunk;
// or DMA-sized buffers shared by the helpers, each filled (or emptied) by several of them a
// chunk ("piece") at a time (staging_units.cpp). The engine keeps counts; timing is a decorator's
// around its device (engine/measured_staging_device.hpp), so that without one no clock is read
// and no flag tested in a copy's path.
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "engine/mapped_files.hpp"
#include "engine/staging_device.hpp"
#include "settings/engine_defaults.hpp"
#include "util/spin_first_mutex.hpp"

namespace xfer {

// An engine's resolved settings (engine/engine_resolve.hpp makes them from EngineOptions). The
// member defaults are what resolve() makes of the default options for one helper
// (kEngineDefaults: shared DMAs of 8 chunks of 1 MiB, 4 chunks per helper; a unit test holds
// the two together).
struct StagingConfig {
    int device = 0;                          // for messages
    int threads = 1;                         // helper threads (at least 1)
    int buffers = kEngineDefaults.buffers;   // chunk buffers per helper
    uint64_t chunk = kEngineDefaults.chunk;  // bytes per chunk to the device (and back)
    uint64_t chunk_from_device = 0;          // bytes per chunk from the device (0: `chunk`)
    std::vector<int> cpus{};                 // helper affinity; empty: none
    // Page-locked request memory (DMA'd in place, no bounce) in chunks of this size; 0: one
    // per helper (the fewest DMA set-ups that keep every helper busy).
    uint64_t page_locked_chunk = 0;
    // How many of the `threads` helpers take work, asked at the start of every request on the
    // caller's thread (so: thread-safe and cheap); clamped to 1..threads. The others keep their
    // buffers and sleep. Empty: all. The engine registry's share (engine/staging_registry.hpp).
    std::function<int()> active_helpers{};
    // Bytes per DMA of a bounced copy. No more than a chunk: each helper DMAs its own chunks
    // from its own buffers. Larger: the page-locked memory is cut into buffers of this size
    // (staging_layout) that the helpers fill, or empty, together, a chunk each.
    uint64_t dma_chunk = kEngineDefaults.dma();
    // Shared buffers: a helper with nothing to take while a request is active spins until the
    // engine has news instead of sleeping, so that a buffer's pieces are taken as soon as its
    // DMA ends rather than after the helpers' wake-ups.
    bool idle_spin = true;
    // To the device: where a copy's source is a shared mapping of a regular file, helpers read
    // the file into the buffers ([staging] mapped_files = "read"; engine/mapped_files.hpp).
    bool read_mapped_files = true;
    // Shared buffers, to the device from pageable memory: the caller opens its copy's first
    // buffer and fills its pieces (of a quarter chunk: kFirstUnitPieceShare) alongside the
    // helpers it wakes; the caller is running already, where each sleeping helper's first piece
    // waits for its wake-up. The DMAs stay the helpers' to start ([staging] start = "caller";
    // "helpers", the default: false).
    bool caller_starts = false;
    // A thread that finds the engine's lock taken keeps trying this long before it sleeps
    // (util/spin_first_mutex.hpp; [staging] lock = "spin"); 0: it sleeps at once ("block").
    int64_t lock_spin_ns = 0;
    // Shared buffers: after expect_copy() the helpers spin this long for the copy before they
    // sleep again; 0: expect_copy() does nothing ([staging] wake = "arrival").
    int64_t expect_spin_ns = 0;
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
// The larger chunk of `c`'s two directions: the size of one helper's buffer.
uint64_t staging_buffer_bytes(const StagingConfig& c);
// The chunk of one direction.
uint64_t staging_chunk_of(const StagingConfig& c, bool to_device);

// What an engine has done since start(): counts, kept under the lock the engine takes anyway.
struct StagingTotals {
    uint64_t requests = 0;         // copies asked for
    uint64_t to_device_bytes = 0;  // of finished DMAs, by direction
    uint64_t from_device_bytes = 0;
    uint64_t direct_bytes = 0;     // page-locked memory DMA'd in place (no bounce)
    uint64_t chunks = 0;           // finished DMAs
    uint64_t pieces = 0;           // shared buffers: the helpers' copies into or out of them
    uint64_t file_read_bytes = 0;  // read from the file behind a mapping (mapped_files)
    uint64_t lock_contended = 0;   // the engine's lock found taken (helpers and callers)
    uint64_t lock_slept = 0;       // ... and slept for (every time with lock = "block")
    uint64_t heads_ups = 0;        // expect_copy() calls that woke the helpers
};

class StagingEngine {
  public:
    // `device`: the platform's, or wrapped in a MeasuredStagingDevice to measure the engine.
    StagingEngine(StagingConfig config, std::unique_ptr<StagingDevice> device);
    ~StagingEngine();  // stops the helpers
    StagingEngine(const StagingEngine&) = delete;
    StagingEngine& operator=(const StagingEngine&) = delete;

    // Starts the helper threads and waits until each has attached; throws the first attach
    // failure (the helpers are stopped again). Outside the timed copies.
    void start();
    // Lets the helpers finish what is in flight and joins them. Idempotent.
    void stop();

    // On a caller's thread, before a copy it expects to ask for: wakes the sleeping helpers
    // that may take work, which then spin until a copy arrives or config().expect_spin_ns has
    // passed, so that their wake-ups overlap the caller's way into the engine instead of
    // following its arrival. Without the lock; a system call only where helpers sleep and no
    // heads-up is running. Shared buffers only; nothing where expect_spin_ns is 0.
    void expect_copy();

    // On a caller's thread: moves `bytes` bytes and returns when all have arrived. Throws
    // std::runtime_error naming the device and the chunk's offset when a DMA failed (the rest
    // of the request is abandoned; other requests go on). Does not allocate, except
    // (read_mapped_files) to hold open, for the copy, the file a source maps. `page_locked`: the
    // host memory is page-locked already, so it is DMA'd straight from or to it.
    void to_device(void* device_dst, const std::byte* host_src, uint64_t bytes,
                   bool page_locked = false);
    void from_device(std::byte* host_dst, const void* device_src, uint64_t bytes,
                     bool page_locked = false);

    const StagingConfig& config() const { return config_; }
    // Counts so far, safe to read at any time.
    StagingTotals totals() const;
    // The helpers the latest request let take work (config().threads before the first).
    int active_helpers() const;

  private:
    struct Request;
    struct Chunk {
        Request* request = nullptr;
        uint64_t offset = 0;
        uint64_t len = 0;
    };
    struct Helper;
    // Shared-buffer mode: one DMA-sized buffer and the request range it holds; the helpers copy
    // its pieces in or out, and whoever finishes the last piece starts the DMA (to the device)
    // or whoever waited for the DMA hands out the pieces (from the device). It retires as one.
    struct Unit : Chunk {
        // filled: its pieces are in (a caller copied the last one) and a helper is to start
        // its DMA: the engine's device calls stay on the helpers' threads.
        enum class State { free, filling, filled, starting, in_flight, waiting, ready };
        State state = State::free;
        uint64_t handed = 0;    // bytes of pieces handed out (filling, ready)
        uint64_t done = 0;      // bytes of pieces copied
        uint64_t seq = 0;       // order opened: pieces and waits go to the oldest first
        uint64_t piece = 0;     // bytes per piece
        int caller_pieces = 0;  // pieces a caller holds, not yet copied (caller_starts)
    };
    struct UnitTask {
        enum class Kind { piece, start, wait } kind = Kind::piece;
        int unit = 0;
        uint64_t offset = 0;  // piece: in the unit
        uint64_t len = 0;
    };

    void run_request(Request& r);
    void helper_main(int index);
    void attach(Helper& h);
    bool take_chunk(Chunk& c);  // under mutex_
    // Under mutex_: request `r`'s next range into `c`, where it has one left.
    static bool take_range(Request& r, Chunk& c);
    void issue(Helper& h, int slot, Chunk& c);
    void complete(Helper& h, int slot, const Chunk& c);
    void retire(const Chunk& c, const std::string& error);
    void retire_locked(const Chunk& c, const std::string& error);
    // The helper took work after being idle, or went idle: told to the device once each.
    void mark_busy(Helper& h);
    void mark_idle(Helper& h);
    // Under mutex_: there may be work for the helpers (news for the spinning ones too).
    void wake_helpers_locked();
    // Sleeps until there may be work for `h`: until news_ moves while it may take work, else
    // until standby_news_ does.
    void wait_for_work_locked(const Helper& h, std::unique_lock<SpinFirstMutex>& lock);
    // Per-helper buffers (staging_engine.cpp) and shared ones (staging_units.cpp).
    void run_own(Helper& h);
    void run_shared(Helper& h);
    bool take_unit_task(UnitTask& t);  // under mutex_
    // Under mutex_: opens a free unit (while fewer than units_allowed_ are in use) with the next
    // range of `only`, or with the next range in turn when null, and gives its first task.
    bool open_unit_locked(Request* only, UnitTask& t);
    // Bytes per piece of the unit holding `c` (smaller for a request's first range where its
    // caller fills it).
    uint64_t piece_of(const Chunk& c) const;
    // On the caller's thread (caller_starts): pieces of the first unit, while it has any.
    void caller_fill(UnitTask t);
    void run_unit_task(Helper& h, const UnitTask& t);
    // `who`: the helper's index, or kCallerThread for a caller's piece.
    void copy_piece(int who, const UnitTask& t);
    // Into `buffer`, bound for the device: the request's bytes [offset, offset + len), read
    // from the file behind its mapping where one was found, else copied.
    void fill(const Request& r, std::byte* buffer, uint64_t offset, uint64_t len);
    void wait_unit(const UnitTask& t);
    void start_unit_dma(int unit);
    // Retires the unit's range (its bytes counted unless `error`) and frees the unit.
    void free_unit_locked(Unit& u, const std::string& error);
    void count_locked(const Chunk& c);  // a finished DMA into totals_
    std::string chunk_error(const Chunk& c, const char* what) const;

    StagingConfig config_;
    std::unique_ptr<StagingDevice> device_;
    std::vector<std::unique_ptr<Helper>> helpers_;
    std::vector<std::thread> threads_;

    mutable SpinFirstMutex mutex_;
    // What sleeping helpers wait on, without the lock: a helper woken by a condition variable
    // took the lock inside its wait, so helpers woken together queued there for it, each
    // unlock a wake-up (SpinFirstMutex). Woken from a word, each takes the lock with lock().
    // news_ counts wake_helpers_locked(): the helpers that may take work sleep on it and the
    // spinning ones watch it. Helpers past active_ (an "auto" engine sharing the CPUs with
    // others) sleep on standby_news_ instead: woken only when they are let in again or at stop,
    // never by the news of every piece (four processes of twelve helpers, three let in each,
    // spent 47 % of their helpers' busy time taking work, where three helpers each spent 0.7 %).
    // Both change only under the lock.
    std::atomic<uint32_t> news_{0};
    std::atomic<uint32_t> standby_news_{0};
    std::atomic<int64_t> expected_until_{0};  // expect_copy()'s deadline (now_ns())
    std::atomic<uint64_t> heads_ups_{0};      // expect_copy() calls that woke the helpers
    std::condition_variable_any attached_;  // start(): a helper attached (or failed to)
    Request* first_ = nullptr;          // active requests, a ring served in turn
    Request* cursor_ = nullptr;         // the request the next chunk comes from
    bool stopping_ = false;
    bool running_ = false;
    int active_ = 1;           // helpers [0, active_) take work (StagingConfig::active_helpers)
    std::vector<Unit> units_;  // shared-buffer mode only
    // Units that may be in use at once: as many as the buffers of the helpers let in would hold
    // (staging_layout's rule for active_ helpers), so an auto engine kept to 3 of its 12 helpers
    // keeps as few DMAs queued as an engine of 3 helpers. Four processes on one device ran at
    // 0.93x pinned with 6 buffers of 8 MiB each and 0.96-1.01x with 2, in one run (H100,
    // scenarios/cure-processes.toml: docs/results/one-engine-h100.md).
    size_t units_allowed_ = 0;
    uint64_t unit_seq_ = 0;
    uint64_t request_seq_ = 0;  // names requests to the device (1, 2, ...)
    int attached_count_ = 0;
    std::string attach_error_;
    StagingTotals totals_;                      // guarded by mutex_
    std::atomic<uint64_t> file_read_bytes_{0};  // totals_.file_read_bytes, added by fill()
    MappedFiles mapped_files_;                  // read_mapped_files: the file behind a source
};

}  // namespace xfer
