#include "run/cuda_only.hpp"

#include <algorithm>

#include "backend/host_backend.hpp"

namespace xfer {

std::string cuda_only_reason(const Run& run, const Backend& backend, bool fell_back) {
    if (!fell_back || backend.name() != "host") return "";
    return host_needs_cuda(run.settings.transfer);
}

size_t runs_needing_cuda(const std::vector<Run>& plan, const std::string& backend) {
    if (backend == "cuda") return plan.size();
    // On the host it falls back to, as cuda_only_reason would find them.
    return size_t(std::count_if(plan.begin(), plan.end(), [](const Run& run) {
        return !host_needs_cuda(run.settings.transfer).empty();
    }));
}

}  // namespace xfer
