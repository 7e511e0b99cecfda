#pragma once
// The harness's probe of its staging engines (transfer.path = "staged"): what StatsProbe sums,
// and per helper its ThreadInfo, read inside the helper when it started, and its busy spans for
// the timeline: a run's HelperThread records (results/helper_thread.hpp).
#include <cstdint>
#include <functional>
#include <mutex>
#include <vector>

#include "engine/stats_probe.hpp"
#include "results/helper_thread.hpp"

namespace xfer {

class HarnessProbe final : public StatsProbe {
  public:
    // `correlation`: the CUPTI correlation reader (StatsProbe), so each DMA joins its copy.
    HarnessProbe(int helpers, std::function<uint32_t()> correlation);

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
