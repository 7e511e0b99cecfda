#pragma once
// The identical copy routine. Host threads, OpenMP threads, Python threads (through the
// embedded module) and worker processes all call Worker::copy_once: same timing, same record.
#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "backend/backend.hpp"
#include "results/record.hpp"
#include "system/thread_counters.hpp"
#include "util/clock.hpp"
#include "system/thread_info.hpp"

namespace xfer {

class Worker {
public:
    Worker(int run, int index, std::unique_ptr<WorkerTransfer> transfer, int repetitions,
           int warmup);

    // [threads] gap_stages / gap_counters, before enter_thread: what each record's `gap`
    // holds (results/gap_probe.hpp).
    void probe_gaps(bool stages, bool counters);
    bool stages() const { return stages_; }

    // On the worker's own thread, before the start barrier: ThreadInfo from inside the thread,
    // then the backend's per-thread set-up (device selection, first touch), and the thread's
    // counters opened when gap_counters asks for them. Never timed.
    void enter_thread(const std::string& launcher);
    // Why some of the thread's counters are not read ("" when all are, or none was asked for).
    std::string counters_unavailable() const;

    // The embedded interpreter's stages of the gap after the previous call, each a host-clock
    // stamp kept for the next record (Record::gap). Callers stamp only when stages() is set:
    // the thread back in the interpreter, the payload's mark (`ns` as it read it) and the next
    // call's entry into xferlab (read by the caller as it entered, `ns`).
    void stamp_attached() { pending_gap_.attached_ns = now_ns(); }
    void stamp_python(int64_t ns) { pending_gap_.python_ns = ns; }
    void stamp_entry(int64_t ns) { pending_gap_.entry_ns = ns; }

    // One copy, timed inside: host clock around the backend call. The first `warmup` calls are
    // marked warm-up. Never allocates once the record storage is reserved (a payload copying
    // past the plan's count grows it, outside the timed call). The record is published
    // (published_records) once complete.
    const Record& copy_once();
    // `n` copies back to back without returning to the caller in between.
    void copy_n(int n);
    // threads.between after a copy, the time it took kept for the next record (between_ns).
    // Every copy loop calls this, and only this, between two copies.
    void pause_between(const BetweenSpec& spec);

    // A payload's `with w.timed(...)` block: one record of this worker for a copy the payload
    // makes itself (a framework's call), timed on the worker's thread like copy_once, marked
    // with `source` (Record::source) and joined to the device copies the block issues. The
    // host clock is read last in begin_timed and first in end_timed. Throws std::length_error
    // past the records the run reserved (warmup + repetitions), std::logic_error when a block
    // is already open.
    void begin_timed(uint16_t source, uint64_t bytes);
    const Record& end_timed(bool failed);
    bool in_timed_block() const { return timed_open_; }
    // Copies made by copy_once (not timed blocks): what verify() can check.
    int native_copies() const { return native_copies_; }
    int index() const { return index_; }
    int repetitions() const { return repetitions_; }
    int warmup() const { return warmup_; }
    int copies_done() const { return int(records_.size()); }
    WorkerTransfer& transfer() { return *transfer_; }
    const std::vector<Record>& records() const { return records_; }
    // From another thread while this worker copies (a worker process streaming its records to
    // its parent): appends the records published since `from` to `out` and returns the new
    // count. records() is for the worker's own thread, or after the copies ended.
    size_t copy_published(size_t from, std::vector<Record>& out) const;
    std::vector<Record>& records() { return records_; }
    ThreadInfo& thread_info() { return info_; }
    const ThreadInfo& thread_info() const { return info_; }

private:
    // Appends the next record with everything known before the clock starts (index, warm-up,
    // device, thread, CPU, the pending between time). Shared by copy_once and begin_timed.
    Record& open_record(uint64_t bytes);
    // gap_counters: the thread's counters right after a call returns and right before the next
    // call starts, their difference in the next record.
    void counters_at_return();
    void counters_at_call(Record& r);
    int run_;
    int index_;
    int repetitions_;
    int warmup_;
    int tid_ = 0;
    int pid_ = 0;
    // The NUMA node most sampled pages of the host buffer were on once attached (-1: none).
    int16_t host_node_ = -1;
    int64_t pending_between_ns_ = 0;
    bool stages_ = false;
    bool counters_wanted_ = false;
    GapProbe pending_gap_;
    std::unique_ptr<ThreadCounters> counters_;
    ThreadCounterSample at_return_;
    int native_copies_ = 0;
    bool timed_open_ = false;
    std::unique_ptr<WorkerTransfer> transfer_;
    std::vector<Record> records_;
    // Records complete in records_, stored (release) after each is written, so that another
    // thread reads them without reading records_.size(), which the worker's thread changes.
    std::atomic<size_t> published_{0};
    // Held by copy_published and by the rare growth of records_ past its reservation: the only
    // writes that move records_' storage.
    mutable std::mutex storage_mutex_;
    ThreadInfo info_;
};

// Checks the destination after the worker's last copy. The message names the worker, the
// repetition and the first wrong byte; nullopt when the bytes arrived (or nothing was copied).
std::optional<std::string> verification_failure(Worker& worker);

}  // namespace xfer
