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
// DMA, so the DMAs start in about the order of the request and the link stays busy.
#include <algorithm>
#include <atomic>
#include <cstring>
#include <exception>
#include <string>
#include <thread>

#include "engine/staging_engine.hpp"
#include "engine/staging_engine_parts.hpp"
#include "util/clock.hpp"
#include "util/cpu_pause.hpp"

namespace xfer {

namespace {

// Until `news` moves past `seen`, or (`until` > 0) the clock passes `until`: a pause per turn,
// and now and then a yield, so that a machine with fewer CPUs than threads still runs the rest.
void spin_until_news(const std::atomic<uint32_t>& news, uint32_t seen, int64_t until = 0) {
    for (unsigned turn = 1; news.load(std::memory_order_acquire) == seen; ++turn) {
        if (turn % 64 != 0) {
            cpu_pause();
            continue;
        }
        if (until > 0 && now_ns() >= until) return;
        std::this_thread::yield();
    }
}

// The pieces of a request's first unit when its caller fills it (StagingConfig::caller_starts):
// a quarter chunk, so that the caller, running from the start, and the helpers, as each wakes,
// share it evenly instead of the last helper to wake holding a whole chunk of it.
constexpr uint64_t kFirstUnitPieceShare = 4;
constexpr uint64_t kLeastPiece = 64 * 1024;

}  // namespace

uint64_t StagingEngine::piece_of(const Chunk& c) const {
    const uint64_t piece = staging_chunk_of(config_, c.request->to_device);
    if (!config_.caller_starts || !c.request->to_device || c.request->direct || c.offset != 0 ||
        piece <= kLeastPiece)
        return piece;
    const uint64_t smaller = (piece / kFirstUnitPieceShare + 4095) / 4096 * 4096;
    return std::max(kLeastPiece, smaller);
}

void StagingEngine::run_shared(Helper& h) {
    for (;;) {
        UnitTask t;
        {
            std::unique_lock lock(mutex_);
            for (;;) {
                if (h.index < active_ && take_unit_task(t)) break;
                // A unit in use brings news when its pieces or its DMA are done; spinning for it
                // (rather than a wake-up later) hands a unit's pieces out as soon as its DMA ends.
                // So does a copy expected (expect_copy), until its deadline.
                const bool in_use =
                    std::any_of(units_.begin(), units_.end(),
                                [](const Unit& u) { return u.state != Unit::State::free; });
                const int64_t expected = expected_until_.load(std::memory_order_relaxed);
                if (config_.idle_spin && h.index < active_ && !stopping_ &&
                    (in_use || (expected > 0 && now_ns() < expected))) {
                    const uint32_t seen = news_.load(std::memory_order_acquire);
                    lock.unlock();
                    mark_busy(h);
                    auto spin = [&] { spin_until_news(news_, seen, in_use ? 0 : expected); };
                    device_->spin(h.index, HostStep(spin));
                    lock.lock();
                    continue;
                }
                mark_idle(h);
                if (stopping_) return;
                wait_for_work_locked(h, lock);
            }
        }
        mark_busy(h);
        run_unit_task(h, t);
    }
}

bool StagingEngine::take_unit_task(UnitTask& t) {
    // 0. The DMA of a unit whose last piece a caller copied.
    for (Unit& u : units_)
        if (u.state == Unit::State::filled) {
            u.state = Unit::State::starting;
            t = {UnitTask::Kind::start, int(&u - units_.data()), 0, u.len};
            return true;
        }
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
    if (open_unit_locked(nullptr, t)) return true;
    // 3. Wait for the oldest DMA in flight, one helper at a time: the DMAs end in about the
    // order started, so a second waiter would sit on a later DMA while the first one's pieces
    // wait for hands; the helpers left spin (run_shared) and take them. Not while a caller's
    // piece is the last of a unit: its DMA is a helper's to start, and a helper inside a wait
    // would leave it unstarted for that DMA's length (one helper left the link idle so).
    if (config_.caller_starts)
        for (const Unit& u : units_)
            if (u.state == Unit::State::filling && u.caller_pieces > 0 && u.handed >= u.len)
                return false;
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

bool StagingEngine::open_unit_locked(Request* only, UnitTask& t) {
    // While fewer than the helpers let in would hold are in use (units_allowed_).
    const size_t in_use = size_t(std::count_if(
        units_.begin(), units_.end(), [](const Unit& u) { return u.state != Unit::State::free; }));
    if (in_use >= units_allowed_) return false;
    const auto free = std::find_if(units_.begin(), units_.end(),
                                   [](const Unit& u) { return u.state == Unit::State::free; });
    if (free == units_.end()) return false;
    Chunk c;
    if (!(only ? take_range(*only, c) : take_chunk(c))) return false;
    Unit& u = *free;
    u = Unit{};
    static_cast<Chunk&>(u) = c;
    u.seq = ++unit_seq_;
    u.piece = piece_of(c);
    const int index = int(&u - units_.data());
    if (c.request->to_device && !c.request->direct) {
        u.state = Unit::State::filling;
        t = {UnitTask::Kind::piece, index, 0, std::min(u.piece, u.len)};
        u.handed = t.len;
    } else {
        u.state = Unit::State::starting;
        t = {UnitTask::Kind::start, index, 0, u.len};
    }
    return true;
}

void StagingEngine::caller_fill(UnitTask t) {
    const uint64_t seq = units_[size_t(t.unit)].seq;
    for (;;) {
        copy_piece(kCallerThread, t);  // where it was the last piece, a helper starts the DMA
        std::lock_guard lock(mutex_);
        Unit& u = units_[size_t(t.unit)];
        // Only the unit it opened (its seq: a unit reopened later has another), while it still
        // has pieces to hand out.
        if (u.seq != seq || u.state != Unit::State::filling || u.handed >= u.len) return;
        t = {UnitTask::Kind::piece, t.unit, u.handed, std::min(u.piece, u.len - u.handed)};
        u.handed += t.len;
        ++u.caller_pieces;
    }
}

void StagingEngine::free_unit_locked(Unit& u, const std::string& error) {
    retire_locked(u, error);
    u.state = Unit::State::free;
    u.request = nullptr;
    wake_helpers_locked();  // a unit to open
}

void StagingEngine::run_unit_task(Helper& h, const UnitTask& t) {
    switch (t.kind) {
        case UnitTask::Kind::start:
            start_unit_dma(t.unit);
            return;
        case UnitTask::Kind::wait:
            wait_unit(t);
            return;
        case UnitTask::Kind::piece:
            copy_piece(h.index, t);
            return;
    }
}

void StagingEngine::wait_unit(const UnitTask& t) {
    Unit& u = units_[size_t(t.unit)];
    Request& r = *u.request;  // fixed while the task runs: the unit is not free
    std::string error;
    try {
        device_->wait(0, t.unit);
    } catch (const std::exception& e) {
        error = chunk_error(u, e.what());
    }
    std::lock_guard lock(mutex_);
    if (error.empty() && !r.to_device && !r.direct) {
        u.state = Unit::State::ready;  // its pieces can be copied out now
        u.handed = u.done = 0;
        wake_helpers_locked();
    } else {
        free_unit_locked(u, error);
    }
}

// A piece: copied into the unit's buffer (to the device) or out of it.
void StagingEngine::copy_piece(int who, const UnitTask& t) {
    Unit& u = units_[size_t(t.unit)];
    Request& r = *u.request;
    std::byte* buffer = device_->buffer(0, t.unit) + t.offset;
    std::byte* host = r.host + u.offset + t.offset;
    auto copy = [&] {
        if (r.to_device)
            fill(r, buffer, u.offset + t.offset, t.len);
        else
            std::memcpy(host, buffer, t.len);
    };
    device_->host_copy(who, t.len, HostStep(copy));
    bool start = false;
    {
        std::lock_guard lock(mutex_);
        ++totals_.pieces;
        u.done += t.len;
        if (who == kCallerThread) --u.caller_pieces;
        if (u.done < u.len) return;
        if (!r.to_device)
            free_unit_locked(u, {});  // the last piece is out: the bytes have arrived
        else if (r.failed)
            free_unit_locked(u, r.error);  // abandoned with its request: nothing counted
        else if (who == kCallerThread) {
            u.state = Unit::State::filled;  // the helpers start it, spinning while units are in use
            wake_helpers_locked();
        } else {
            u.state = Unit::State::starting;
            start = true;
        }
    }
    if (start) start_unit_dma(t.unit);
}

// The unit's DMA, from its buffer (or the request's page-locked memory); in flight afterwards.
void StagingEngine::start_unit_dma(int index) {
    Unit& u = units_[size_t(index)];
    Request& r = *u.request;
    std::byte* host = r.direct ? r.host + u.offset : device_->buffer(0, index);
    std::byte* device = r.device + u.offset;
    std::string error;
    try {
        if (r.to_device)
            device_->start_to_device(0, index, device, host, u.len, r.id);
        else
            device_->start_from_device(0, index, host, device, u.len, r.id);
    } catch (const std::exception& e) {
        error = chunk_error(u, e.what());
    }
    std::lock_guard lock(mutex_);
    if (!error.empty()) {
        free_unit_locked(u, error);  // nothing started: nothing to wait for
        return;
    }
    u.state = Unit::State::in_flight;
    wake_helpers_locked();  // somebody may wait for it
}

}  // namespace xfer
