#pragma once
// The harness's probe of its staging engines (transfer.path = "staged"): what StatsProbe sums, the
// DMAs' CUPTI ids with their copies' tags (CorrelatingProbe), and per helper its ThreadInfo, read
// inside the helper when it started, and its busy spans for the timeline: a run's HelperThread
// records (results/helper_thread.hpp).
#include <cstdint>
#include <mutex>
#include <vector>

#include "backend/correlating_probe.hpp"
#include "results/helper_thread.hpp"

namespace xfer {

class HarnessProbe final : public CorrelatingProbe {
  public:
    // `sources`: the CUPTI correlation reader and the caller's copy tag, so each DMA joins its
    // copy (kept: the run joins them all when it ends).
    HarnessProbe(int helpers, Sources sources);

    void helper_started(int helper) override;
    // Every helper's ThreadInfo, busy spans and work so far.
    std::vector<HelperThread> helper_threads() const;

  protected:
    void busy_span(int helper, int64_t begin, int64_t end) override;

  private:
    mutable std::mutex mutex_;
    std::vector<HelperThread> threads_;  // work filled in when read
};

}  // namespace xfer
