#include "engine/staging_engine.hpp"

#include <fmt/format.h>
#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "engine/staging_engine_parts.hpp"

namespace xfer {

StagingEngine::StagingEngine(StagingConfig config, std::unique_ptr<StagingDevice> device)
    : config_(std::move(config)), device_(std::move(device)), mutex_(config_.lock_spin_ns) {
    if (config_.threads < 1 || config_.buffers < 1 || config_.chunk == 0)
        throw std::invalid_argument(fmt::format(
            "staging on device {}: needs at least one helper thread, one buffer and a chunk of at "
            "least one byte (threads = {}, buffers = {}, chunk = {})",
            config_.device, config_.threads, config_.buffers, config_.chunk));
}

StagingEngine::~StagingEngine() { stop(); }

uint64_t staging_buffer_bytes(const StagingConfig& c) {
    return std::max(c.chunk, c.chunk_from_device);
}

uint64_t staging_chunk_of(const StagingConfig& c, bool to_device) {
    return !to_device && c.chunk_from_device > 0 ? c.chunk_from_device : c.chunk;
}

bool staging_shares_buffers(const StagingConfig& c) {
    return c.dma_chunk > staging_buffer_bytes(c);
}

namespace {

// DMA-sized buffers enough to hold `helpers` helpers' buffers (at least 2), at most `most`.
size_t units_for(const StagingConfig& c, int helpers, size_t most) {
    const uint64_t helpers_bytes =
        uint64_t(helpers) * uint64_t(c.buffers) * staging_buffer_bytes(c);
    const uint64_t units = std::max<uint64_t>(2, (helpers_bytes + c.dma_chunk - 1) / c.dma_chunk);
    return size_t(std::min<uint64_t>(units, most));
}

}  // namespace

StagingLayout staging_layout(const StagingConfig& c) {
    if (!staging_shares_buffers(c)) return {c.threads, c.buffers, staging_buffer_bytes(c)};
    return {1, int(units_for(c, c.threads, 1024)), c.dma_chunk};
}

StagingTotals StagingEngine::totals() const {
    std::lock_guard lock(mutex_);
    StagingTotals t = totals_;
    t.file_read_bytes = file_read_bytes_.load(std::memory_order_relaxed);
    t.lock_contended = mutex_.contended();
    t.lock_slept = mutex_.slept();
    t.heads_ups = heads_ups_.load(std::memory_order_relaxed);
    return t;
}

void StagingEngine::fill(const Request& r, std::byte* buffer, uint64_t offset, uint64_t len) {
    uint64_t read = 0;
    if (r.file.file) {
        read = read_file_into(*r.file.file, r.file.offset + offset, buffer, len);
        file_read_bytes_.fetch_add(read, std::memory_order_relaxed);
    }
    if (read < len) std::memcpy(buffer + read, r.host + offset + read, len - read);
}

int StagingEngine::active_helpers() const {
    std::lock_guard lock(mutex_);
    return active_;
}

void StagingEngine::count_locked(const Chunk& c) {
    const Request& r = *c.request;
    (r.to_device ? totals_.to_device_bytes : totals_.from_device_bytes) += c.len;
    if (r.direct) totals_.direct_bytes += c.len;
    ++totals_.chunks;
}

void StagingEngine::start() {
    std::unique_lock lock(mutex_);
    if (running_) return;
    stopping_ = false;
    attached_count_ = 0;
    attach_error_.clear();
    helpers_.clear();
    active_ = config_.threads;
    for (int i = 0; i < config_.threads; ++i) {
        auto h = std::make_unique<Helper>();
        h->index = i;
        h->slots.resize(size_t(config_.buffers));
        helpers_.push_back(std::move(h));
    }
    units_.assign(staging_shares_buffers(config_) ? size_t(staging_layout(config_).slots) : 0,
                  Unit{});
    units_allowed_ = units_.size();
    running_ = true;
    lock.unlock();
    // The system may refuse a thread (ulimit -u, no room for its stack under ulimit -d): the
    // helpers started are stopped and the engine says which helper and why, where std::thread's
    // bare system_error left them running with the engine marked running.
    std::string no_thread;
    for (int i = 0; i < config_.threads && no_thread.empty(); ++i) {
        try {
            threads_.emplace_back([this, i] { helper_main(i); });
        } catch (const std::exception& e) {
            no_thread = fmt::format("staging on device {}: helper thread {} could not start: {}",
                                    config_.device, i, e.what());
        }
    }
    if (!no_thread.empty()) {
        stop();
        throw std::runtime_error(no_thread);
    }
    lock.lock();
    attached_.wait(lock, [&] { return attached_count_ == config_.threads; });
    if (attach_error_.empty()) return;
    const std::string error = attach_error_;
    lock.unlock();
    stop();
    throw std::runtime_error(error);
}

void StagingEngine::stop() {
    {
        std::lock_guard lock(mutex_);
        if (!running_) return;
        stopping_ = true;
        news_.fetch_add(1, std::memory_order_release);
        standby_news_.fetch_add(1, std::memory_order_release);
    }
    news_.notify_all();
    standby_news_.notify_all();
    for (auto& t : threads_) t.join();
    threads_.clear();
    std::lock_guard lock(mutex_);
    running_ = false;
}

void StagingEngine::to_device(void* device_dst, const std::byte* host_src, uint64_t bytes,
                              bool page_locked) {
    Request r;
    r.to_device = true;
    r.direct = page_locked;
    r.host = const_cast<std::byte*>(host_src);  // only read on this direction
    r.device = static_cast<std::byte*>(device_dst);
    r.bytes = bytes;
    run_request(r);
}

void StagingEngine::from_device(std::byte* host_dst, const void* device_src, uint64_t bytes,
                                bool page_locked) {
    Request r;
    r.to_device = false;
    r.direct = page_locked;
    r.host = host_dst;
    r.device = static_cast<std::byte*>(const_cast<void*>(device_src));  // only read
    r.bytes = bytes;
    run_request(r);
}

void StagingEngine::run_request(Request& r) {
    if (r.bytes == 0) return;
    // Outside the engine's lock: may rescan the engine registry (when another engine came or
    // went).
    r.helpers = config_.active_helpers ? std::clamp(config_.active_helpers(), 1, config_.threads)
                                       : config_.threads;
    // Page-locked memory needs no bounce buffer, so small DMAs would only add set-ups: one per
    // helper (at least a chunk) keeps every helper busy, unless a size for it was asked.
    r.chunk = staging_chunk_of(config_, r.to_device);
    if (!units_.empty() && !r.direct) r.chunk = config_.dma_chunk;
    if (r.direct) {
        const uint64_t threads = uint64_t(r.helpers);
        const uint64_t even = (r.bytes + threads - 1) / threads;
        r.chunk = config_.page_locked_chunk > 0
                      ? config_.page_locked_chunk
                      : std::max(config_.chunk, (even + 4095) / 4096 * 4096);
    }
    // Before the request is seen by a helper: fixed while it runs.
    if (config_.read_mapped_files && r.to_device && !r.direct)
        if (auto file = mapped_files_.find(r.host, r.bytes)) r.file = std::move(*file);
    std::unique_lock lock(mutex_);
    if (!running_ || stopping_)
        throw std::runtime_error(fmt::format(
            "staging on device {}: a copy was asked for while the engine's helper threads were "
            "not running",
            config_.device));
    ++totals_.requests;
    r.id = ++request_seq_;
    device_->request_started(r.id);
    // Helpers [r.helpers, threads) finish what they have in flight and then sleep on standby_;
    // those let in again are woken there.
    const bool more = r.helpers > active_;
    active_ = r.helpers;
    if (!units_.empty()) units_allowed_ = units_for(config_, active_, units_.size());
    if (more) standby_news_.fetch_add(1, std::memory_order_release);
    // Link at the ring's head; helpers serve the ring in turn starting from cursor_.
    r.link = first_;
    first_ = &r;
    if (!cursor_) cursor_ = &r;
    // The caller is running; the helpers it wakes are not yet: it opens its first unit itself
    // and fills it with them as they come (caller_starts; pageable memory to the device: the
    // other copies start with a DMA, which stays the helpers').
    UnitTask first;
    const bool caller_works = config_.caller_starts && !units_.empty() && r.to_device &&
                              !r.direct && open_unit_locked(&r, first);
    if (caller_works) units_[size_t(first.unit)].caller_pieces = 1;
    news_.fetch_add(1, std::memory_order_release);
    lock.unlock();
    news_.notify_all();
    if (more) standby_news_.notify_all();
    if (caller_works) caller_fill(first);
    lock.lock();
    r.done.wait(lock, [&] { return r.finished(); });
    // Unlink (the ring is short: one entry per caller copying to this device right now).
    Request** p = &first_;
    while (*p != &r) p = &(*p)->link;
    *p = r.link;
    if (cursor_ == &r) cursor_ = r.link ? r.link : first_;
    device_->request_finished(r.id, r.failed);
    if (r.failed) throw std::runtime_error(r.error);
}

bool StagingEngine::take_range(Request& r, Chunk& c) {
    if (r.failed || r.next >= r.bytes) return false;
    c.request = &r;
    c.offset = r.next;
    c.len = std::min(r.chunk, r.bytes - r.next);
    r.next += c.len;
    ++r.outstanding;
    return true;
}

bool StagingEngine::take_chunk(Chunk& c) {
    if (!first_) return false;
    Request* start = cursor_ ? cursor_ : first_;
    Request* r = start;
    do {
        if (take_range(*r, c)) {
            cursor_ = r->link ? r->link : first_;
            return true;
        }
        r = r->link ? r->link : first_;
    } while (r != start);
    return false;
}

void StagingEngine::wait_for_work_locked(const Helper& h,
                                         std::unique_lock<SpinFirstMutex>& lock) {
    // Read under the lock, which every change is made under: news after this wakes the wait
    // (atomic::wait returns at once where the word has moved already).
    std::atomic<uint32_t>& word = h.index < active_ ? news_ : standby_news_;
    const uint32_t seen = word.load(std::memory_order_acquire);
    lock.unlock();
    word.wait(seen, std::memory_order_acquire);
    lock.lock();
}

void StagingEngine::expect_copy() {
    // Helpers that sleep while they wait (staging.wait = "block") would only go back to sleep.
    if (config_.expect_spin_ns <= 0 || units_.empty() || !config_.idle_spin) return;
    const int64_t now = now_ns();
    // A heads-up running already: the helpers are awake; the deadline moves, nothing else.
    if (expected_until_.exchange(now + config_.expect_spin_ns, std::memory_order_relaxed) > now)
        return;
    heads_ups_.fetch_add(1, std::memory_order_relaxed);
    // Without the lock: the word's sleepers compare it with what they read under the lock, so
    // this wakes them (and the spinners) once, and a heads-up lost to a race only leaves them
    // asleep.
    news_.fetch_add(1, std::memory_order_release);
    news_.notify_all();
}

void StagingEngine::wake_helpers_locked() {
    news_.fetch_add(1, std::memory_order_release);
    // Under the lock, as before with the condition variable: a system call only where a helper
    // sleeps (the spinning ones watch the word).
    news_.notify_all();
}

void StagingEngine::attach(Helper& h) {
    if (!config_.cpus.empty()) {
        cpu_set_t set;
        CPU_ZERO(&set);
        for (int cpu : config_.cpus)
            if (cpu >= 0 && cpu < CPU_SETSIZE) CPU_SET(cpu, &set);
        if (int rc = pthread_setaffinity_np(pthread_self(), sizeof set, &set); rc != 0)
            throw std::runtime_error(std::string("pthread_setaffinity_np: ") + std::strerror(rc));
    }
    device_->attach_helper(h.index);
}

void StagingEngine::helper_main(int index) {
    // Named as xferlab's threads are: the harness tells its own threads from work a payload left
    // running by the name (system/process_work.hpp), and a profiler shows what they are.
    pthread_setname_np(pthread_self(),
                       ("xfer-stage-" + std::to_string(index)).substr(0, 15).c_str());
    Helper& h = *helpers_[size_t(index)];
    std::string error;
    try {
        attach(h);
    } catch (const std::exception& e) {
        error = fmt::format("staging on device {}: helper thread {} could not start: {}",
                            config_.device, index, e.what());
    }
    {
        std::lock_guard lock(mutex_);
        if (!error.empty() && attach_error_.empty()) attach_error_ = error;
        ++attached_count_;
    }
    attached_.notify_all();
    if (!error.empty()) return;
    if (!units_.empty())
        run_shared(h);
    else
        run_own(h);
}

void StagingEngine::mark_busy(Helper& h) {
    if (!h.busy) device_->helper_busy(h.index, true);
    h.busy = true;
}

void StagingEngine::mark_idle(Helper& h) {
    if (h.busy) device_->helper_busy(h.index, false);
    h.busy = false;
}

// Each helper with buffers of its own: takes chunks while a slot is free, else finishes its
// oldest chunk in flight.
void StagingEngine::run_own(Helper& h) {
    const uint64_t ring = uint64_t(config_.buffers);
    for (;;) {
        Chunk c;
        bool got = false;
        {
            std::unique_lock lock(mutex_);
            for (;;) {
                if (h.head - h.tail < ring && h.index < active_ && take_chunk(c)) {
                    got = true;
                    break;
                }
                if (h.head != h.tail) break;  // nothing to start: finish the oldest in flight
                mark_idle(h);
                if (stopping_) return;
                wait_for_work_locked(h, lock);
            }
        }
        mark_busy(h);
        if (got) {
            const int slot = int(h.head % ring);
            h.slots[size_t(slot)] = c;
            ++h.head;
            issue(h, slot, h.slots[size_t(slot)]);
        } else {
            const int slot = int(h.tail % ring);
            const Chunk done = h.slots[size_t(slot)];
            ++h.tail;
            complete(h, slot, done);
        }
    }
}

// Starts one chunk. On failure the chunk is retired at once with the error (its slot is then
// waited on harmlessly: a DMA that never started has nothing to wait for).
void StagingEngine::issue(Helper& h, int slot, Chunk& c) {
    Request& r = *c.request;
    try {
        std::byte* host = r.host + c.offset;
        std::byte* buf = r.direct ? host : device_->buffer(h.index, slot);
        if (r.to_device && !r.direct) {
            auto copy = [&] { fill(r, buf, c.offset, c.len); };
            device_->host_copy(h.index, c.len, HostStep(copy));
        }
        if (r.to_device)
            device_->start_to_device(h.index, slot, r.device + c.offset, buf, c.len, r.id);
        else
            device_->start_from_device(h.index, slot, buf, r.device + c.offset, c.len, r.id);
    } catch (const std::exception& e) {
        const Chunk failed = c;
        c.request = nullptr;  // complete() must not retire it again
        retire(failed, chunk_error(failed, e.what()));
    }
}

void StagingEngine::complete(Helper& h, int slot, const Chunk& c) {
    if (!c.request) {
        try {
            device_->wait(h.index, slot);
        } catch (const std::exception&) {
            // The chunk that failed to start was retired with its own error.
        }
        return;
    }
    const Request& r = *c.request;
    try {
        device_->wait(h.index, slot);
        if (!r.to_device && !r.direct) {
            auto copy = [&] {
                std::memcpy(r.host + c.offset, device_->buffer(h.index, slot), c.len);
            };
            device_->host_copy(h.index, c.len, HostStep(copy));
        }
    } catch (const std::exception& e) {
        retire(c, chunk_error(c, e.what()));
        return;
    }
    retire(c, {});
}

void StagingEngine::retire(const Chunk& c, const std::string& error) {
    std::lock_guard lock(mutex_);
    retire_locked(c, error);
}

void StagingEngine::retire_locked(const Chunk& c, const std::string& error) {
    Request& r = *c.request;
    if (error.empty()) count_locked(c);
    --r.outstanding;
    if (!error.empty() && !r.failed) {
        r.failed = true;
        r.error = error;
    }
    // A failed request hands out nothing more: what is in flight finishes, the rest is
    // abandoned, and the caller wakes with the first error.
    if (r.failed) r.next = r.bytes;
    // Notify under the lock: once the caller sees finished() it may return, and `r` (on its
    // stack) is gone.
    if (r.finished()) r.done.notify_all();
}

std::string StagingEngine::chunk_error(const Chunk& c, const char* what) const {
    const Request& r = *c.request;
    // The caller knows its own thread (the harness adds its worker's number).
    return fmt::format("staging on device {}: {} chunk at offset {} ({} bytes of {}): {}",
                       config_.device, r.to_device ? "host-to-device" : "device-to-host", c.offset,
                       c.len, r.bytes, what);
}

}  // namespace xfer
