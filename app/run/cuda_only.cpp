#include "run/cuda_only.hpp"

#include "backend/host_backend.hpp"

namespace xfer {

std::string cuda_only_reason(const Run& run, const Backend& backend, bool fell_back) {
    if (!fell_back || backend.name() != "host") return "";
    return host_needs_cuda(run.transfer);
}

}  // namespace xfer
