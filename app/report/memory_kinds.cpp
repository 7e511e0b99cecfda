#include "report/memory_kinds.hpp"

namespace xfer {

std::pair<std::string, std::string> memory_kinds(const RunResult& run) {
    const std::string host = run.host_memory.empty() ? "host" : run.host_memory;
    const std::string device = run.backend == "host" ? "host" : "device";
    if (run.direction == "h2d") return {host, device};
    if (run.direction == "d2h") return {device, host};
    if (run.direction == "d2d" || run.direction == "p2p") return {device, device};
    if (run.direction == "h2h") return {host, host};
    return {"unknown", "unknown"};
}

}  // namespace xfer
