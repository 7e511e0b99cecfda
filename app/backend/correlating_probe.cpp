#include "backend/correlating_probe.hpp"

namespace xfer {

CorrelatingProbe::CorrelatingProbe(int helpers, Sources sources)
    : StatsProbe(helpers), sources_(std::move(sources)) {}

std::vector<CorrelationAlias> CorrelatingProbe::correlations() const {
    std::lock_guard lock(mutex_);
    return kept_;
}

void CorrelatingProbe::request_started(uint64_t request, int64_t at) {
    StatsProbe::request_started(request, at);
    const uint32_t tag = sources_.caller_tag ? sources_.caller_tag() : 0;
    if (tag == 0) return;
    std::lock_guard lock(mutex_);
    copies_[request].tag = tag;
}

void CorrelatingProbe::dma_started(int helper, uint64_t request, int64_t begin, int64_t end) {
    // First: the id of the call just made is the thread's latest only until its next one.
    const uint32_t id = sources_.correlation ? sources_.correlation() : 0;
    StatsProbe::dma_started(helper, request, begin, end);
    if (id == 0) return;
    std::lock_guard lock(mutex_);
    const auto it = copies_.find(request);
    if (it == copies_.end()) return;  // an untagged copy
    if (sources_.hand_over)
        it->second.aliases.emplace_back(id, it->second.tag);
    else
        kept_.emplace_back(id, it->second.tag);
}

void CorrelatingProbe::request_finished(uint64_t request, int64_t at, bool failed) {
    StatsProbe::request_finished(request, at, failed);
    std::vector<CorrelationAlias> aliases;
    {
        std::lock_guard lock(mutex_);
        const auto it = copies_.find(request);
        if (it == copies_.end()) return;
        aliases = std::move(it->second.aliases);
        copies_.erase(it);
    }
    if (sources_.hand_over && !aliases.empty()) sources_.hand_over(aliases);
}

}  // namespace xfer
