#include "engine/stats_probe.hpp"

#include <algorithm>

namespace xfer {

namespace {

// A long stream of copies that never leaves the engine idle folds its DMA intervals this often,
// so that the probe's memory stays bounded.
constexpr size_t kFoldEvery = size_t(1) << 14;

}  // namespace

StatsProbe::StatsProbe(int helpers) {
    for (int i = 0; i < helpers; ++i) helpers_.push_back(std::make_unique<Helper>());
}

ProbeTotals StatsProbe::totals() const {
    ProbeTotals out;
    {
        std::lock_guard lock(mutex_);
        out = totals_;
    }
    for (const auto& h : helpers_) {
        std::lock_guard lock(h->mutex);
        out.work += h->work;
        out.busy_ns += h->busy_ns;
    }
    std::lock_guard lock(callers_->mutex);
    out.callers = callers_->work;
    return out;
}

HelperWork StatsProbe::helper_work(int index) const {
    const Helper& h = helper(index);
    std::lock_guard lock(h.mutex);
    return h.work;
}

void StatsProbe::helper_busy(int index, int64_t at) {
    {
        Helper& h = helper(index);
        std::lock_guard lock(h.mutex);
        if (h.busy_since < 0) h.busy_since = at;
    }
    std::lock_guard lock(mutex_);
    for (auto& [request, c] : copies_) {
        if (at < c.arrived) continue;
        if (c.first_helper == 0) c.first_helper = at;
        if (c.first_dma == 0) {
            ++c.woken;
            c.last_wake = at;
        }
    }
}

void StatsProbe::helper_idle(int index, int64_t at) {
    Helper& h = helper(index);
    int64_t begin = -1;
    {
        std::lock_guard lock(h.mutex);
        if (h.busy_since < 0) return;
        begin = h.busy_since;
        h.busy_ns += at - begin;
        h.busy_since = -1;
    }
    busy_span(index, begin, at);
}

void StatsProbe::copied(int index, uint64_t bytes, int64_t begin, int64_t end) {
    {
        Helper& h = helper(index);
        std::lock_guard lock(h.mutex);
        h.work.copied_bytes += bytes;
        h.work.copy_ns += end - begin;
    }
    std::lock_guard lock(mutex_);
    if (copies_.size() != 1) return;  // whose piece it was is not told
    Copy& c = copies_.begin()->second;
    if (c.first_dma != 0) return;
    c.fill_done = std::max(c.fill_done, end);
    c.slowest_piece = std::max(c.slowest_piece, end - begin);
}

void StatsProbe::dma_started(int index, uint64_t request, int64_t begin, int64_t end) {
    {
        Helper& h = helper(index);
        std::lock_guard lock(h.mutex);
        ++h.work.chunks;
        h.work.start_ns += end - begin;
    }
    std::lock_guard lock(mutex_);
    if (auto it = copies_.find(request); it != copies_.end() && it->second.first_dma == 0)
        it->second.first_dma = end;
}

void StatsProbe::dma_waited(int index, uint64_t request, int64_t issued, int64_t begin,
                            int64_t end) {
    {
        Helper& h = helper(index);
        std::lock_guard lock(h.mutex);
        h.work.wait_ns += end - begin;
    }
    std::lock_guard lock(mutex_);
    if (auto it = copies_.find(request); it != copies_.end())
        it->second.last_done = std::max(it->second.last_done, end);
    dmas_.emplace_back(issued, end);
    if (dmas_.size() >= kFoldEvery) {
        fold_locked(period_start_, end);
        period_start_ = end;
    }
}

void StatsProbe::spun(int index, int64_t begin, int64_t end) {
    Helper& h = helper(index);
    std::lock_guard lock(h.mutex);
    h.work.wait_ns += end - begin;
}

void StatsProbe::request_started(uint64_t request, int64_t at) {
    std::lock_guard lock(mutex_);
    if (copies_.empty()) period_start_ = at;
    const bool alone = copies_.empty();
    for (auto& [other, c] : copies_) c.alone = false;
    copies_[request] = Copy{.arrived = at, .alone = alone};
}

void StatsProbe::request_finished(uint64_t request, int64_t at, bool failed) {
    std::lock_guard lock(mutex_);
    const auto it = copies_.find(request);
    if (it == copies_.end()) return;
    const Copy c = it->second;
    copies_.erase(it);
    totals_.in_engine_ns += at - c.arrived;
    totals_.last = {c.arrived, c.first_dma, c.last_done, at};
    if (c.first_helper > 0) {
        ++totals_.woke;
        totals_.to_first_helper_ns += c.first_helper - c.arrived;
    }
    if (!failed && c.first_dma > 0 && c.last_done > 0) {
        if (c.alone && c.fill_done > 0) {
            ++totals_.first_fills;
            totals_.woken_before_first_dma += c.woken;
            totals_.to_last_wake_ns += c.last_wake > 0 ? c.last_wake - c.arrived : 0;
            totals_.to_first_fill_done_ns += c.fill_done - c.arrived;
            totals_.slowest_first_piece_ns += c.slowest_piece;
        }
        ++totals_.edged;
        totals_.to_first_dma_ns += c.first_dma - c.arrived;
        totals_.dma_span_ns += c.last_done - c.first_dma;
        totals_.after_last_dma_ns += at - c.last_done;
    }
    if (copies_.empty()) fold_locked(period_start_, at);
}

void StatsProbe::fold_locked(int64_t from, int64_t to) {
    std::sort(dmas_.begin(), dmas_.end());
    int64_t covered = 0, run_begin = from, run_end = from;  // the union's current interval
    for (auto [begin, end] : dmas_) {
        begin = std::max(begin, from);
        end = std::min(end, to);
        if (end <= begin) continue;
        if (begin > run_end) {
            covered += run_end - run_begin;
            run_begin = begin;
        }
        run_end = std::max(run_end, end);
    }
    covered += run_end - run_begin;
    totals_.link_starved_ns += std::max<int64_t>(0, (to - from) - covered);
    dmas_.clear();
}

}  // namespace xfer
