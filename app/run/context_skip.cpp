#include "run/context_skip.hpp"

namespace xfer {

std::string context_skip_reason(const Run& run, const Backend& backend) {
    if (run.transfer.context != ContextKind::per_worker || backend.name() != "host") return "";
    return "transfer.context = " + quoted_value(ContextKind::per_worker) +
           " needs the cuda backend (CUDA contexts); this run is on the host backend";
}

}  // namespace xfer
