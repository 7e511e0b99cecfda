#include "run/cuda_only.hpp"

#include <algorithm>

#include "backend/host_backend.hpp"

namespace xfer {

std::string cuda_only_reason(const Run& run, const Backend& backend, bool fell_back) {
    if (!fell_back || backend.name() != "host") return "";
    return host_needs_cuda(run.transfer);
}

size_t runs_needing_cuda(const std::vector<Run>& plan, const std::string& backend) {
    if (backend == "cuda") return plan.size();
    const auto host = make_host_backend();
    return size_t(std::count_if(plan.begin(), plan.end(), [&](const Run& run) {
        return !cuda_only_reason(run, *host, /*fell_back=*/true).empty();
    }));
}

}  // namespace xfer
