#pragma once
// A probe (engine/engine_probe.hpp) that sums what Engine.stats() and the harness's reports
// read: where each helper's busy time went, a copy's edges (before its first DMA, the span of
// its DMAs, after its last), and how long the link waited for the helpers, derived afterwards
// from the DMAs' issue and done times rather than polled while the engine runs. The harness
// builds on it (backend/correlating_probe.hpp: each DMA's CUPTI id joined to the copy that caused
// it). Thread-safe: each helper's figures under their own lock, the copies' under the probe's.
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "engine/engine_probe.hpp"
#include "engine/helper_work.hpp"
#include "settings/engine_defaults.hpp"
#include "util/spin_first_mutex.hpp"

namespace xfer {

// One copy's moments (now_ns()): its arrival, its first DMA issued, its last DMA seen done, its
// return; 0 where it had none (a copy with no DMA).
struct CopyMoments {
    int64_t arrived = 0;
    int64_t first_dma = 0;
    int64_t last_done = 0;
    int64_t finished = 0;
};

// What the probe has summed since the engine started.
struct ProbeTotals {
    HelperWork work;  // over the helpers (their spinning counted as waiting)
    // Pieces copied on callers' threads (StagingConfig::caller_starts), apart from the helpers'
    // so that their rates stay the helpers' own.
    HelperWork callers;
    int64_t busy_ns = 0;  // helpers busy: from taking work to going idle
    // A copy's edges, summed over the `edged` copies that had a DMA and did not fail: from the
    // call to its first DMA issued (the fill), from its first DMA issued to its last seen done
    // (the span the link carried it), and from then until the caller was woken (the drain).
    uint64_t edged = 0;
    int64_t to_first_dma_ns = 0;
    int64_t dma_span_ns = 0;
    int64_t after_last_dma_ns = 0;
    // From a copy's arrival to the first helper taking work after it (its wake-up, where the
    // helpers slept), summed over the `woke` copies in which one did.
    uint64_t woke = 0;
    int64_t to_first_helper_ns = 0;
    // Before each edged copy's first DMA, one copy in the engine at a time (its pieces are
    // then its own): how many helpers took work, the last of them (from the arrival), the
    // last piece copied (from the arrival) and the slowest piece.
    uint64_t first_fills = 0;
    uint64_t woken_before_first_dma = 0;
    int64_t to_last_wake_ns = 0;
    int64_t to_first_fill_done_ns = 0;
    int64_t slowest_first_piece_ns = 0;
    // The latest copy that finished, as it went (the caller's clock brackets it from outside).
    CopyMoments last;
    // From each copy's arrival to its return, summed over every copy: the engine's share of the
    // caller's time (the rest is the caller's own: finding the memory, waiting for streams).
    int64_t in_engine_ns = 0;
    // Time in which copies were in the engine and none of its DMAs was in flight (issued and
    // not yet seen done): the link waited for the helpers (the fill, the drain and any gap in
    // between). A DMA is seen done when a helper's wait for it returns, which may be after it
    // finished: waits shorter than that lag stay unseen.
    int64_t link_starved_ns = 0;
};

class StatsProbe : public EngineProbe {
  public:
    // `helpers`: the engine's helper threads.
    explicit StatsProbe(int helpers);

    ProbeTotals totals() const;
    HelperWork helper_work(int helper) const;

    void helper_busy(int helper, int64_t at) override;
    void helper_idle(int helper, int64_t at) override;
    void copied(int helper, uint64_t bytes, int64_t begin, int64_t end) override;
    void dma_started(int helper, uint64_t request, int64_t begin, int64_t end) override;
    void dma_waited(int helper, uint64_t request, int64_t issued, int64_t begin,
                    int64_t end) override;
    void spun(int helper, int64_t begin, int64_t end) override;
    void request_started(uint64_t request, int64_t at) override;
    void request_finished(uint64_t request, int64_t at, bool failed) override;

  protected:
    // A helper's busy span ended (the harness keeps them for the timeline).
    virtual void busy_span(int /*helper*/, int64_t /*begin*/, int64_t /*end*/) {}

  private:
    struct Helper {
        mutable std::mutex mutex;
        HelperWork work;
        int64_t busy_since = -1;
        int64_t busy_ns = 0;
    };
    struct Copy {
        int64_t arrived = 0;
        int64_t first_dma = 0;  // 0: none yet
        int64_t last_done = 0;
        int64_t first_helper = 0;  // a helper took work after the arrival; 0: none yet
        // Before its first DMA, while it was alone in the engine (`alone`): helpers that took
        // work, the last time one did, the end of the last piece, the slowest piece.
        bool alone = true;
        uint64_t woken = 0;
        int64_t last_wake = 0;
        int64_t fill_done = 0;
        int64_t slowest_piece = 0;
    };
    // kCallerThread (< 0): the callers' record.
    Helper& helper(int index) const { return index < 0 ? *callers_ : *helpers_[size_t(index)]; }
    // Counts the time of [from, to] that no DMA interval covers as the link's wait, and forgets
    // the intervals. Under mutex_.
    void fold_locked(int64_t from, int64_t to);

    std::vector<std::unique_ptr<Helper>> helpers_;
    std::unique_ptr<Helper> callers_ = std::make_unique<Helper>();
    // The rest. Every helper tells it of its first work and pieces when a copy arrives: it
    // tries before it sleeps as the engine's lock does, so that measuring adds no queue of
    // wake-ups of its own (util/spin_first_mutex.hpp).
    mutable SpinFirstMutex mutex_{kEngineDefaults.lock_spin_ns};
    std::map<uint64_t, Copy> copies_;
    int64_t period_start_ = 0;  // the first of the copies now in the engine arrived
    std::vector<std::pair<int64_t, int64_t>> dmas_;  // [issued, seen done] since period_start_
    ProbeTotals totals_;  // the copies' figures (the helpers' are summed when asked)
};

}  // namespace xfer
