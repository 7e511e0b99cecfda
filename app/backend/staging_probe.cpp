#include "backend/staging_probe.hpp"

#include "system/thread_probe.hpp"

namespace xfer {

HarnessProbe::HarnessProbe(int helpers, Sources sources)
    : CorrelatingProbe(helpers, std::move(sources)), threads_(size_t(helpers)) {
    for (auto& t : threads_) t.busy.reserve(kMaxBusySpans);
}

void HarnessProbe::helper_started(int helper) {
    ThreadInfo info = capture_thread_info("staging", helper);
    std::lock_guard lock(mutex_);
    threads_[size_t(helper)].thread = std::move(info);
}

void HarnessProbe::busy_span(int helper, int64_t begin, int64_t end) {
    std::lock_guard lock(mutex_);
    HelperThread& h = threads_[size_t(helper)];
    if (h.busy.size() < kMaxBusySpans)
        h.busy.push_back({begin, end});
    else
        ++h.busy_dropped;
}

std::vector<HelperThread> HarnessProbe::helper_threads() const {
    std::lock_guard lock(mutex_);
    std::vector<HelperThread> out = threads_;
    for (size_t i = 0; i < out.size(); ++i) out[i].work = helper_work(int(i));
    return out;
}

}  // namespace xfer
