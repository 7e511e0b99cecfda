// The staging engine's shared-buffer mode (StagingConfig::dma_chunk): the page-locked memory is
// a few DMA-sized buffers ("units") instead of small buffers per helper. A unit holds one range
// of one request; the helpers copy its chunks ("pieces") in parallel, so a DMA can be large
// while each helper copies no more than a chunk at a time and the page-locked memory in flight
// stays what the helpers' own buffers would be.
//   to the device:   open a free unit, fill its pieces, the helper that finishes the last one
//                    starts the DMA; whoever has nothing else to do waits for it, then frees it
//   from the device: open a free unit and start its DMA; a helper waits for it, then its pieces
//                    are copied out by whoever is free; the last piece frees it
// Page-locked request memory is DMA'd in place, a unit's range at a time (no pieces).
// A helper prefers pieces of the oldest unit, then opening a unit, then waiting for the oldest
// DMA, so the DMAs start in about the order of the request and the link stays busy. With taper,
// a unit filled or emptied while the link is idle is cut over all the helpers (the link waits
// for it alone), otherwise into chunks. With ramp, a copy's first and last units are shorter and
// cut over all the helpers too. The engine also times how long the link waits for the helpers
// (track_link_locked): what the measurements of one caller's copy rest on.
#include <algorithm>
#include <atomic>
#include <exception>
#include <limits>
#include <string>
#include <thread>

#include "backend/staging_engine.hpp"
#include "backend/staging_engine_parts.hpp"
#include "util/clock.hpp"
#include "util/cpu_pause.hpp"

namespace xfer {

namespace {

constexpr int64_t kNoDeadline = std::numeric_limits<int64_t>::max();

// Until `news` moves past `seen`, or `deadline` (now_ns()) passes: a pause per turn, and now and
// then a yield, so that a machine with fewer CPUs than threads still runs the rest.
void spin_until_news(const std::atomic<uint64_t>& news, uint64_t seen,
                     int64_t deadline = kNoDeadline) {
    for (unsigned turn = 1; news.load(std::memory_order_acquire) == seen; ++turn) {
        if (turn % 64 != 0) {
            cpu_pause();
            continue;
        }
        if (deadline != kNoDeadline && now_ns() >= deadline) return;
        std::this_thread::yield();
    }
}

}  // namespace

uint64_t staging_piece_length(uint64_t len, uint64_t chunk, int helpers, bool split) {
    if (!split || helpers <= 1) return chunk;
    constexpr uint64_t kPage = 4096;
    const uint64_t share = (len + uint64_t(helpers) - 1) / uint64_t(helpers);
    const uint64_t pages = (share + kPage - 1) / kPage * kPage;
    return std::min(chunk, std::max(kMinTaperPiece, pages));
}

uint64_t staging_unit_length(uint64_t offset, uint64_t bytes, uint64_t dma, bool ramp) {
    const uint64_t left = bytes - offset;
    if (!ramp) return std::min(dma, left);
    constexpr uint64_t kPage = 4096;
    const uint64_t least = std::max(kPage, dma / kRampDivisor / kPage * kPage);
    const uint64_t head = offset + least;  // least, 2 least, 4 least, ... from the start
    const uint64_t tail = (left / 2 + kPage - 1) / kPage * kPage;  // half the rest at the end
    const uint64_t len = std::min(left, std::max(least, std::min({dma, head, tail})));
    // No sliver after it: a last DMA of less than half the least is joined to this one.
    return left - len < least / 2 && left <= dma ? left : len;
}

uint64_t StagingEngine::unit_piece_locked(const Unit& u) const {
    const uint64_t chunk = staging_chunk_of(config_, u.request->to_device);
    // A ramp's short buffer is there to start (or end) the link sooner: all hands on it.
    if (config_.ramp && u.len < config_.dma_chunk)
        return staging_piece_length(u.len, chunk, active_, true);
    if (!config_.taper) return chunk;
    const bool link_idle = std::none_of(units_.begin(), units_.end(), [&](const Unit& o) {
        return &o != &u && (o.state == Unit::State::starting || o.state == Unit::State::in_flight ||
                            o.state == Unit::State::waiting);
    });
    return staging_piece_length(u.len, chunk, active_, link_idle);
}

void StagingEngine::run_shared(Helper& h) {
    int64_t busy_since = -1;
    for (;;) {
        UnitTask t;
        {
            std::unique_lock lock(mutex_);
            for (;;) {
                if (h.index < active_ && take_unit_task(t)) break;
                // A unit in use brings news when its pieces or its DMA are done; spinning for it
                // (rather than a wake-up later) hands a unit's pieces out as soon as its DMA ends.
                // The helper waits for a DMA, its own or one another helper waits for: counted so.
                if (config_.idle_spin && h.index < active_ && !stopping_ &&
                    std::any_of(units_.begin(), units_.end(),
                                [](const Unit& u) { return u.state != Unit::State::free; })) {
                    const uint64_t seen = news_.load(std::memory_order_acquire);
                    lock.unlock();
                    const int64_t t0 = now_ns();
                    if (busy_since < 0) busy_since = t0;
                    spin_until_news(news_, seen);
                    HelperWork spun;
                    spun.wait_ns = now_ns() - t0;
                    lock.lock();
                    h.info.work += spun;
                    totals_.work += spun;
                    continue;
                }
                go_idle_locked(h, busy_since);
                if (stopping_) return;
                // Lingering: awake a while after the last buffer was freed (linger_ns).
                if (const int64_t until = last_unit_freed_ns_ + config_.linger_ns;
                    config_.idle_spin && config_.linger_ns > 0 && h.index < active_ &&
                    now_ns() < until) {
                    const uint64_t seen = news_.load(std::memory_order_acquire);
                    lock.unlock();
                    spin_until_news(news_, seen, until);
                    lock.lock();
                    continue;
                }
                work_.wait(lock);
            }
        }
        if (busy_since < 0) busy_since = now_ns();
        run_unit_task(h, t);
    }
}

bool StagingEngine::take_unit_task(UnitTask& t) {
    // 1. A piece of the oldest unit that has pieces left.
    Unit* oldest = nullptr;
    for (Unit& u : units_)
        if ((u.state == Unit::State::filling || u.state == Unit::State::ready) &&
            u.handed < u.len && (!oldest || u.seq < oldest->seq))
            oldest = &u;
    if (oldest) {
        t = {UnitTask::Kind::piece, int(oldest - units_.data()), oldest->handed,
             std::min(oldest->piece, oldest->len - oldest->handed)};
        oldest->handed += t.len;
        return true;
    }
    // 2. Open a free unit with the next range of a request (in turn, as chunks are handed out).
    for (Unit& u : units_) {
        if (u.state != Unit::State::free) continue;
        Chunk c;
        if (!take_chunk(c)) break;
        u = Unit{};
        static_cast<Chunk&>(u) = c;
        u.seq = ++unit_seq_;
        const int index = int(&u - units_.data());
        if (c.request->to_device && !c.request->direct) {
            u.state = Unit::State::filling;
            u.piece = unit_piece_locked(u);
            t = {UnitTask::Kind::piece, index, 0, std::min(u.piece, u.len)};
            u.handed = t.len;
        } else {
            u.state = Unit::State::starting;
            t = {UnitTask::Kind::start, index, 0, u.len};
        }
        track_link_locked();
        return true;
    }
    // 3. Wait for the oldest DMA in flight, one helper at a time: the DMAs end in about the
    // order started, so a second waiter would sit on a later DMA while the first one's pieces
    // wait for hands; the helpers left spin (run_shared) and take them.
    oldest = nullptr;
    for (Unit& u : units_) {
        if (u.state == Unit::State::waiting) return false;
        if (u.state == Unit::State::in_flight && (!oldest || u.seq < oldest->seq)) oldest = &u;
    }
    if (!oldest) return false;
    oldest->state = Unit::State::waiting;
    t = {UnitTask::Kind::wait, int(oldest - units_.data()), 0, oldest->len};
    return true;
}

void StagingEngine::free_unit_locked(Unit& u, const std::string& error) {
    retire_locked(u, error);
    u.state = Unit::State::free;
    u.request = nullptr;
    track_link_locked();
    if (config_.linger_ns > 0) last_unit_freed_ns_ = now_ns();
    wake_helpers_locked();  // a unit to open
}

void StagingEngine::credit_locked(Helper& h, Unit& u, const HelperWork& work) {
    h.info.work += work;
    u.work += work;
}

std::string StagingEngine::unit_error(const Unit& u, const char* what) const {
    return chunk_error(u, what);
}

void StagingEngine::run_unit_task(Helper& h, const UnitTask& t) {
    Unit& u = units_[size_t(t.unit)];
    Request& r = *u.request;  // fixed while the task runs: the unit is not free
    if (t.kind == UnitTask::Kind::start) {
        start_unit_dma(h, t.unit);
        return;
    }
    if (t.kind == UnitTask::Kind::wait) {
        HelperWork mine;
        std::string error;
        const int64_t t0 = now_ns();
        try {
            device_->wait(0, t.unit);
        } catch (const std::exception& e) {
            error = unit_error(u, e.what());
        }
        const int64_t waited = now_ns();
        mine.wait_ns += waited - t0;
        std::lock_guard lock(mutex_);
        credit_locked(h, u, mine);
        u.dma_done_ns = waited;
        if (error.empty() && !r.to_device && !r.direct) {
            u.state = Unit::State::ready;  // its pieces can be copied out now
            u.handed = u.done = 0;
            u.piece = unit_piece_locked(u);
            track_link_locked();
            wake_helpers_locked();
        } else {
            free_unit_locked(u, error);
        }
        return;
    }
    // A piece: copied into the unit's buffer (to the device) or out of it.
    HelperWork mine;
    std::byte* buffer = device_->buffer(0, t.unit) + t.offset;
    std::byte* host = r.host + u.offset + t.offset;
    const int64_t t0 = now_ns();
    if (r.to_device)
        host_copy(config_.copy_in, buffer, host, t.len);
    else
        host_copy(config_.copy_out, host, buffer, t.len);
    mine.copy_ns += now_ns() - t0;
    mine.copied_bytes += t.len;
    bool start = false;
    {
        std::lock_guard lock(mutex_);
        credit_locked(h, u, mine);
        ++totals_.pieces;
        u.done += t.len;
        if (u.done < u.len) {
            track_link_locked();  // a DMA may have ended meanwhile
            return;
        }
        if (!r.to_device)
            free_unit_locked(u, {});  // the last piece is out: the bytes have arrived
        else if (r.failed)
            free_unit_locked(u, r.error);  // abandoned with its request: nothing counted
        else {
            u.state = Unit::State::starting;
            track_link_locked();
            start = true;
        }
    }
    if (start) start_unit_dma(h, t.unit);
}

// The unit's DMA, from its buffer (or the request's page-locked memory); in flight afterwards.
void StagingEngine::start_unit_dma(Helper& h, int index) {
    Unit& u = units_[size_t(index)];
    Request& r = *u.request;
    std::byte* host = r.direct ? r.host + u.offset : device_->buffer(0, index);
    std::byte* device = r.device + u.offset;
    HelperWork mine;
    std::string error;
    const int64_t t0 = now_ns();
    try {
        if (r.to_device)
            device_->start_to_device(0, index, device, host, u.len);
        else
            device_->start_from_device(0, index, host, device, u.len);
        ++mine.chunks;
        if (uint32_t id = device_->last_correlation(); id && r.tag) {
            std::lock_guard own(h.aliases_mutex);
            h.aliases.emplace_back(id, r.tag);
        }
    } catch (const std::exception& e) {
        error = unit_error(u, e.what());
    }
    const int64_t started = now_ns();
    mine.start_ns += started - t0;
    std::lock_guard lock(mutex_);
    credit_locked(h, u, mine);
    u.dma_started_ns = started;
    if (!error.empty()) {
        free_unit_locked(u, error);  // nothing started: nothing to wait for
        return;
    }
    u.state = Unit::State::in_flight;
    wake_helpers_locked();  // somebody may wait for it
}

void StagingEngine::track_link_locked() {
    bool dma = false, held = false;
    const Unit* newest = nullptr;  // the DMA issued last of those not yet seen done
    for (const Unit& u : units_) {
        dma = dma || u.state == Unit::State::starting;
        if ((u.state == Unit::State::in_flight || u.state == Unit::State::waiting) &&
            (!newest || u.dma_started_ns > newest->dma_started_ns))
            newest = &u;
        held = held || u.state == Unit::State::filling || u.state == Unit::State::ready;
    }
    // The units' DMAs share one stream and finish in the order issued (not opened: buffers fill
    // in parallel): the last one done, all are. Seen done is later (the one waiting helper takes
    // them oldest first, and only when no piece is left).
    if (held && !dma && newest) dma = !device_->finished(0, int(newest - units_.data()));
    const bool starved = held && !dma;
    if (starved == (starved_since_ >= 0)) return;
    const int64_t now = now_ns();
    if (starved) {
        starved_since_ = now;
    } else {
        totals_.link_starved_ns += now - starved_since_;
        starved_since_ = -1;
    }
}

}  // namespace xfer
