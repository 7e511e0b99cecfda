#include "backend/staging_engine.hpp"

#include <fmt/format.h>
#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "backend/staging_engine_parts.hpp"
#include "system/thread_probe.hpp"
#include "util/clock.hpp"

namespace xfer {

StagingEngine::StagingEngine(StagingConfig config, std::unique_ptr<StagingDevice> device)
    : config_(std::move(config)), device_(std::move(device)) {
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

StagingLayout staging_layout(const StagingConfig& c) {
    if (!staging_shares_buffers(c)) return {c.threads, c.buffers, staging_buffer_bytes(c)};
    const uint64_t helpers_bytes =
        uint64_t(c.threads) * uint64_t(c.buffers) * staging_buffer_bytes(c);
    const uint64_t units = std::max<uint64_t>(2, (helpers_bytes + c.dma_chunk - 1) / c.dma_chunk);
    return {1, int(std::min<uint64_t>(units, 1024)), c.dma_chunk};
}

StagingTotals StagingEngine::totals() const {
    std::lock_guard lock(mutex_);
    return totals_;
}

void StagingEngine::count_locked(const Chunk& c) {
    const Request& r = *c.request;
    (r.to_device ? totals_.to_device_bytes : totals_.from_device_bytes) += c.len;
    if (r.direct) totals_.direct_bytes += c.len;
    ++totals_.chunks;
    totals_.work += c.work;
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
        h->aliases.reserve(size_t(1) << 14);
        helpers_.push_back(std::move(h));
    }
    units_.assign(staging_shares_buffers(config_) ? size_t(staging_layout(config_).slots) : 0,
                  Unit{});
    running_ = true;
    lock.unlock();
    for (int i = 0; i < config_.threads; ++i) threads_.emplace_back([this, i] { helper_main(i); });
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
    }
    work_.notify_all();
    for (auto& t : threads_) t.join();
    threads_.clear();
    std::lock_guard lock(mutex_);
    running_ = false;
}

std::vector<HelperThread> StagingEngine::helper_threads() const {
    std::lock_guard lock(mutex_);
    std::vector<HelperThread> out;
    for (const auto& h : helpers_) out.push_back(h->info);
    return out;
}

uint64_t StagingEngine::chunks_issued() const {
    std::lock_guard lock(mutex_);
    uint64_t n = 0;
    for (const auto& h : helpers_) n += h->info.work.chunks;
    return n;
}

int StagingEngine::active_helpers() const {
    std::lock_guard lock(mutex_);
    return active_;
}

std::vector<CorrelationAlias> StagingEngine::correlations() const {
    std::lock_guard lock(mutex_);
    std::vector<CorrelationAlias> out;
    for (const auto& h : helpers_) {
        std::lock_guard own(h->aliases_mutex);
        out.insert(out.end(), h->aliases.begin(), h->aliases.end());
    }
    return out;
}

std::vector<CorrelationAlias> StagingEngine::take_correlations(uint32_t tag) {
    std::lock_guard lock(mutex_);
    std::vector<CorrelationAlias> out;
    for (const auto& h : helpers_) {
        std::lock_guard own(h->aliases_mutex);
        auto& a = h->aliases;
        auto kept =
            std::partition(a.begin(), a.end(), [&](const auto& x) { return x.second != tag; });
        out.insert(out.end(), kept, a.end());
        a.erase(kept, a.end());
    }
    return out;
}

void StagingEngine::to_device(void* device_dst, const std::byte* host_src, uint64_t bytes,
                              int worker, uint32_t tag, bool page_locked) {
    Request r;
    r.to_device = true;
    r.direct = page_locked;
    r.host = const_cast<std::byte*>(host_src);  // only read on this direction
    r.device = static_cast<std::byte*>(device_dst);
    r.bytes = bytes;
    r.worker = worker;
    r.tag = tag;
    run_request(r);
}

void StagingEngine::from_device(std::byte* host_dst, const void* device_src, uint64_t bytes,
                                int worker, uint32_t tag, bool page_locked) {
    Request r;
    r.to_device = false;
    r.direct = page_locked;
    r.host = host_dst;
    r.device = static_cast<std::byte*>(const_cast<void*>(device_src));  // only read
    r.bytes = bytes;
    r.worker = worker;
    r.tag = tag;
    run_request(r);
}

void StagingEngine::run_request(Request& r) {
    if (r.bytes == 0) return;
    r.arrived_ns = now_ns();
    // Outside the engine's lock: may rescan the engine registry (when another engine came or
    // went).
    r.helpers = config_.active_helpers ? std::clamp(config_.active_helpers(), 1, config_.threads)
                                       : config_.threads;
    // Page-locked memory needs no bounce buffer, so small chunks would only add DMA set-ups:
    // one chunk per helper (at least the configured size) keeps every helper's stream busy,
    // unless a chunk size for it was asked.
    r.chunk = staging_chunk_of(config_, r.to_device);
    if (!units_.empty() && !r.direct) r.chunk = config_.dma_chunk;
    if (r.direct) {
        const uint64_t threads = uint64_t(r.helpers);
        const uint64_t even = (r.bytes + threads - 1) / threads;
        r.chunk = config_.page_locked_chunk > 0
                      ? config_.page_locked_chunk
                      : std::max(config_.chunk, (even + 4095) / 4096 * 4096);
    }
    std::unique_lock lock(mutex_);
    if (!running_ || stopping_)
        throw std::runtime_error(fmt::format(
            "staging on device {}: {} copied while the engine's helper threads were not running",
            config_.device, r.worker >= 0 ? fmt::format("worker {}", r.worker) : "a copy"));
    ++totals_.requests;
    // Helpers [r.helpers, threads) finish what they have in flight and then sleep; the
    // notify below wakes the ones let in again.
    active_ = r.helpers;
    // Link at the ring's head; helpers serve the ring in turn starting from cursor_.
    r.link = first_;
    first_ = &r;
    if (!cursor_) cursor_ = &r;
    news_.fetch_add(1, std::memory_order_release);
    lock.unlock();
    work_.notify_all();
    lock.lock();
    r.done.wait(lock, [&] { return r.finished(); });
    if (!r.failed && r.first_dma_ns > 0 && r.last_dma_done_ns > 0) {
        ++totals_.edged;
        totals_.to_first_dma_ns += r.first_dma_ns - r.arrived_ns;
        totals_.after_last_dma_ns += now_ns() - r.last_dma_done_ns;
        totals_.dma_span_ns += r.last_dma_done_ns - r.first_dma_ns;
    }
    // Unlink (the ring is short: one entry per worker copying to this device right now).
    Request** p = &first_;
    while (*p != &r) p = &(*p)->link;
    *p = r.link;
    if (cursor_ == &r) cursor_ = r.link ? r.link : first_;
    if (r.failed) throw std::runtime_error(r.error);
}

uint64_t staging_chunk_length(uint64_t offset, uint64_t bytes, uint64_t chunk, int threads,
                              bool taper) {
    const uint64_t left = bytes - offset;
    uint64_t len = chunk;
    if (taper) {
        constexpr uint64_t kPage = 4096;
        const uint64_t helpers = uint64_t(std::max(threads, 1));
        const uint64_t small = std::max<uint64_t>(chunk / 4 / kPage * kPage, kPage);
        if (offset < helpers * small) {
            len = small;
        } else if (left <= helpers * chunk) {
            const uint64_t share = (left / helpers + kPage - 1) / kPage * kPage;
            len = std::min(chunk, std::max(small, share));
        }
    }
    return std::min(len, left);
}

bool StagingEngine::take_chunk(Chunk& c) {
    if (!first_) return false;
    Request* start = cursor_ ? cursor_ : first_;
    Request* r = start;
    do {
        if (!r->failed && r->next < r->bytes) {
            c.request = r;
            c.offset = r->next;
            c.len = !units_.empty() && !r->direct
                        ? staging_unit_length(r->next, r->bytes, r->chunk, config_.ramp)
                        : staging_chunk_length(r->next, r->bytes, r->chunk, r->helpers,
                                               config_.taper && !r->direct);
            r->next += c.len;
            ++r->outstanding;
            Request* after = r->link ? r->link : first_;
            cursor_ = after;
            return true;
        }
        r = r->link ? r->link : first_;
    } while (r != start);
    return false;
}

void StagingEngine::go_idle_locked(Helper& h, int64_t& busy_since) {
    if (busy_since < 0) return;
    const int64_t now = now_ns();
    if (h.info.busy.size() < kMaxBusySpans)
        h.info.busy.push_back({busy_since, now});
    else
        ++h.info.busy_dropped;
    totals_.busy_ns += now - busy_since;
    busy_since = -1;
}

void StagingEngine::wake_helpers_locked() {
    news_.fetch_add(1, std::memory_order_release);
    work_.notify_all();
}

void StagingEngine::helper_main(int index) {
    Helper& h = *helpers_[size_t(index)];
    std::string error;
    try {
        if (!config_.cpus.empty()) {
            cpu_set_t set;
            CPU_ZERO(&set);
            for (int cpu : config_.cpus)
                if (cpu >= 0 && cpu < CPU_SETSIZE) CPU_SET(cpu, &set);
            if (int rc = pthread_setaffinity_np(pthread_self(), sizeof set, &set); rc != 0)
                throw std::runtime_error(std::string("pthread_setaffinity_np: ") +
                                         std::strerror(rc));
        }
        device_->attach_helper(index);
        h.info.thread = capture_thread_info("staging", index);
        h.info.busy.reserve(kMaxBusySpans);
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

    if (!units_.empty()) {
        run_shared(h);
        return;
    }
    const uint64_t ring = uint64_t(config_.buffers);
    int64_t busy_since = -1;  // start of the current busy span (for the timeline)
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
                go_idle_locked(h, busy_since);
                if (stopping_) return;
                work_.wait(lock);
            }
        }
        if (busy_since < 0) busy_since = now_ns();
        if (got) {
            const int slot = int(h.head % ring);
            h.slots[size_t(slot)] = c;
            ++h.head;
            issue(h, slot, c);
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
void StagingEngine::issue(Helper& h, int slot, const Chunk& c) {
    Request& r = *c.request;
    try {
        std::byte* host = r.host + c.offset;
        std::byte* buf = r.direct ? host : device_->buffer(h.index, slot);
        HelperWork mine;  // this chunk's share: the helper's own totals and the engine's
        int64_t t = now_ns();
        if (r.to_device) {
            if (!r.direct) {
                host_copy(config_.copy_in, buf, host, c.len);
                mine.copied_bytes += c.len;
                const int64_t copied = now_ns();
                mine.copy_ns += copied - t;
                t = copied;
            }
            device_->start_to_device(h.index, slot, r.device + c.offset, buf, c.len);
        } else {
            device_->start_from_device(h.index, slot, buf, r.device + c.offset, c.len);
        }
        const int64_t started = now_ns();
        mine.start_ns += started - t;
        ++mine.chunks;
        h.info.work += mine;
        h.slots[size_t(slot)].work = mine;
        h.slots[size_t(slot)].dma_started_ns = started;
        // Kept only for a traced request (a run's): a long-lived engine would grow without end.
        if (uint32_t id = device_->last_correlation(); id && r.tag) {
            std::lock_guard own(h.aliases_mutex);
            h.aliases.emplace_back(id, r.tag);
        }
    } catch (const std::exception& e) {
        h.slots[size_t(slot)].request = nullptr;  // complete() must not retire it again
        retire(c, chunk_error(c, e.what()));
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
    Chunk done = c;
    try {
        HelperWork mine;
        const int64_t t = now_ns();
        device_->wait(h.index, slot);
        const int64_t waited = now_ns();
        mine.wait_ns += waited - t;
        done.dma_done_ns = waited;
        if (!c.request->to_device && !c.request->direct) {
            host_copy(config_.copy_out, c.request->host + c.offset, device_->buffer(h.index, slot),
                      c.len);
            mine.copied_bytes += c.len;
            mine.copy_ns += now_ns() - waited;
        }
        h.info.work += mine;
        done.work += mine;
    } catch (const std::exception& e) {
        retire(c, chunk_error(c, e.what()));
        return;
    }
    retire(done, {});
}

void StagingEngine::retire(const Chunk& c, const std::string& error) {
    std::lock_guard lock(mutex_);
    retire_locked(c, error);
}

void StagingEngine::retire_locked(const Chunk& c, const std::string& error) {
    Request& r = *c.request;
    if (error.empty()) count_locked(c);
    if (c.dma_started_ns > 0 && (r.first_dma_ns == 0 || c.dma_started_ns < r.first_dma_ns))
        r.first_dma_ns = c.dma_started_ns;
    r.last_dma_done_ns = std::max(r.last_dma_done_ns, c.dma_done_ns);
    --r.outstanding;
    if (!error.empty() && !r.failed) {
        r.failed = true;
        r.error = error;
    }
    // A failed request hands out nothing more: what is in flight finishes, the rest is
    // abandoned, and the worker wakes with the first error.
    if (r.failed) r.next = r.bytes;
    // Notify under the lock: once the worker sees finished() it may return, and `r` (on its
    // stack) is gone.
    if (r.finished()) r.done.notify_all();
}

std::string StagingEngine::chunk_error(const Chunk& c, const char* what) const {
    const Request& r = *c.request;
    // Worker < 0: a copy of no worker's (the Python module's), whose caller knows its thread.
    return fmt::format("staging on device {}: {}{} chunk at offset {} ({} bytes of {}): {}",
                       config_.device, r.worker >= 0 ? fmt::format("worker {}, ", r.worker) : "",
                       r.to_device ? "host-to-device" : "device-to-host", c.offset, c.len, r.bytes,
                       what);
}

}  // namespace xfer
