// The identical copy routine: every launcher's workers time their copies here, the same way.
#include "launch/worker.hpp"

#include "watch/capture.hpp"

#include <fmt/format.h>
#include <sched.h>

#include <algorithm>
#include <stdexcept>

#include "launch/thread_control.hpp"
#include "util/units.hpp"
#include "system/thread_probe.hpp"
#include "util/clock.hpp"

namespace xfer {

Worker::Worker(int run, int index, std::unique_ptr<WorkerTransfer> transfer, int repetitions,
               int warmup)
    : run_(run),
      index_(index),
      repetitions_(repetitions),
      warmup_(warmup),
      transfer_(std::move(transfer)) {
    // Every record the plan asks for is reserved now, so copy_once never allocates.
    records_.reserve(size_t(repetitions_ > 0 ? repetitions_ : 0) +
                     size_t(warmup_ > 0 ? warmup_ : 0));
}

void Worker::probe_gaps(bool stages, bool counters) {
    stages_ = stages;
    counters_wanted_ = counters;
}

void Worker::enter_thread(const std::string& launcher) {
    info_ = capture_thread_info(launcher, index_);
    tid_ = info_.tid;
    pid_ = info_.pid;
    transfer_->attach_thread();
    // Where the host buffer's pages are now that both first touches are done (never timed).
    if (const void* host = transfer_->host_side()) {
        int8_t nodes[XW_NUMA_PAGES];
        const int n = watch::sample_host_nodes(host, transfer_->bytes(), nodes, XW_NUMA_PAGES);
        host_node_ = int16_t(watch::majority_node(nodes, n));
    }
    // This thread's counters: perf_event_open with pid 0 counts the thread that opens them.
    if (counters_wanted_ && !counters_) counters_ = std::make_unique<ThreadCounters>();
}

std::string Worker::counters_unavailable() const {
    return counters_ ? counters_->unavailable() : "";
}

void Worker::counters_at_return() { counters_->read(at_return_); }

void Worker::counters_at_call(Record& r) {
    ThreadCounterSample now;
    counters_->read(now);
    for (size_t i = 0; i < kThreadCounters; ++i) {
        if (!now.read[i] || !at_return_.read[i] || now.value[i] < at_return_.value[i]) continue;
        r.gap.counters[i] =
            uint32_t(std::min<uint64_t>(now.value[i] - at_return_.value[i], GapProbe::kUnread - 1));
    }
}

Record& Worker::open_record(uint64_t bytes) {
    const int n = int(records_.size());
    if (records_.size() == records_.capacity()) {  // a payload copying past the plan's count
        std::lock_guard lock(storage_mutex_);
        records_.reserve(std::max<size_t>(64, 2 * records_.capacity()));
    }
    Record& r = records_.emplace_back();
    r.run = run_;
    r.worker = index_;
    r.repetition = n - warmup_;  // warm-up copies are -warmup..-1
    r.warmup = n < warmup_;
    r.device = transfer_->device();
    r.bytes = bytes;
    r.tid = tid_;
    r.pid = pid_;
    r.cpu = sched_getcpu();  // before the clock: its cost is not part of the copy
    r.between_ns = pending_between_ns_;
    pending_between_ns_ = 0;
    if (stages_) {
        r.gap = pending_gap_;
        pending_gap_ = GapProbe{};
        // A mark from before the previous call's return is not one of this gap's.
        if (n > 0 && r.gap.python_ns < records_[size_t(n) - 1].host_end_ns) r.gap.python_ns = -1;
    }
    return r;
}

const Record& Worker::copy_once() {
    Record& r = open_record(transfer_->bytes());
    r.host_node = host_node_;
    if (counters_) counters_at_call(r);
    const int64_t t0 = now_ns();
    const CopyOutcome outcome = transfer_->copy();
    const int64_t t1 = now_ns();

    r.host_start_ns = t0;
    r.host_end_ns = t1;
    r.device_start_ns = outcome.device_start_ns;
    r.device_end_ns = outcome.device_end_ns;
    r.device_timing = outcome.device_timing;
    r.correlation = outcome.correlation;
    ++native_copies_;
    published_.store(records_.size(), std::memory_order_release);
    if (counters_) counters_at_return();
    return r;
}

void Worker::begin_timed(uint16_t source, uint64_t bytes) {
    if (timed_open_) throw std::logic_error("a timed block is already open on this worker");
    if (records_.size() >= size_t(std::max(warmup_, 0) + std::max(repetitions_, 0)))
        throw std::length_error(
            fmt::format("worker {} has made all {} copies of the run (warmup {} + repetitions {})",
                        index_, records_.size(), warmup_, repetitions_));
    Record& r = open_record(bytes);
    r.source = source;
    timed_open_ = true;
    r.correlation = transfer_->begin_timed_block();
    if (counters_) counters_at_call(r);
    r.host_start_ns = now_ns();
}

const Record& Worker::end_timed(bool failed) {
    const int64_t t1 = now_ns();
    Record& r = records_.back();
    const TimedBlockCalls calls = transfer_->end_timed_block();
    timed_open_ = false;
    r.host_end_ns = t1;
    r.device_calls = int16_t(std::min(calls.calls, 32767));
    r.gil_held_calls = int16_t(std::min(calls.gil_held, 32767));
    r.failed = failed;
    published_.store(records_.size(), std::memory_order_release);
    if (counters_) counters_at_return();
    return r;
}

size_t Worker::copy_published(size_t from, std::vector<Record>& out) const {
    std::lock_guard lock(storage_mutex_);
    const size_t n = published_.load(std::memory_order_acquire);
    if (from < n) out.insert(out.end(), records_.data() + from, records_.data() + n);
    return std::max(from, n);
}

void Worker::pause_between(const BetweenSpec& spec) { pending_between_ns_ = apply_between(spec); }

void Worker::copy_n(int n) {
    for (int i = 0; i < n; ++i) copy_once();
}

std::optional<std::string> verification_failure(Worker& worker) {
    // Timed blocks copy the payload's own buffers: only copy_once writes the destination.
    if (worker.native_copies() == 0) return std::nullopt;
    const int64_t offset = worker.transfer().verify();
    if (offset < 0) return std::nullopt;
    return fmt::format(
        "verification failed: worker {}, repetition {} (the last copy), offset {} of {}: "
        "the destination does not hold the source's bytes",
        worker.index(), worker.records().back().repetition, offset,
        format_size(worker.transfer().bytes()));
}

}  // namespace xfer
