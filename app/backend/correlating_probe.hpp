#pragma once
// A staging engine's probe that also joins the engine's DMAs to the copy that caused them: the
// DMAs run on the engine's helper threads, where nothing of the caller's (its record's tag, its
// w.timed() block) is seen, so each DMA's CUPTI correlation id is kept with the tag its caller's
// copy had when it arrived. The harness's staged copies keep them until the run ends
// (HarnessProbe, backend/staging_probe.hpp); a payload's engines hand each copy's over as the
// copy returns, to the w.timed() block open on the caller's thread
// (backend/payload_engine_probe.hpp). The engine knows nothing of tags: it only numbers requests.
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <utility>
#include <vector>

#include "engine/stats_probe.hpp"

namespace xfer {

// A DMA's CUPTI correlation id and the tag of the copy it belongs to.
using CorrelationAlias = std::pair<uint32_t, uint32_t>;

class CorrelatingProbe : public StatsProbe {
  public:
    struct Sources {
        // On a helper's thread: reads and clears its latest CUPTI correlation id (0: none).
        std::function<uint32_t()> correlation;
        // On the caller's thread: the tag of the copy it asks for (0: none; such a copy keeps
        // no ids, so that a long-lived engine does not grow without end).
        std::function<uint32_t()> caller_tag;
        // Given: each copy's ids are handed to it as the copy returns (on the caller's thread)
        // instead of kept.
        std::function<void(const std::vector<CorrelationAlias>&)> hand_over;
    };
    CorrelatingProbe(int helpers, Sources sources);

    // Every id kept (none when handed over), with its copy's tag.
    std::vector<CorrelationAlias> correlations() const;

    void request_started(uint64_t request, int64_t at) override;
    void dma_started(int helper, uint64_t request, int64_t begin, int64_t end) override;
    void request_finished(uint64_t request, int64_t at, bool failed) override;

  private:
    struct Copy {
        uint32_t tag = 0;
        std::vector<CorrelationAlias> aliases;  // hand_over: this copy's, until it returns
    };
    Sources sources_;
    mutable std::mutex mutex_;
    std::map<uint64_t, Copy> copies_;  // tagged copies in the engine, by request
    std::vector<CorrelationAlias> kept_;
};

}  // namespace xfer
