#include "report/analysis/memory_kinds.hpp"

#include "settings/vocabulary.hpp"

namespace xfer {

std::pair<std::string, std::string> memory_kinds(const RunResult& run) {
    const std::string host = to_string(run.settings.transfer.host_memory);
    const BackendDescriptor* backend = find_backend(run.backend_used);
    const std::string device = backend && !backend->has_devices ? "host" : "device";
    switch (run.settings.transfer.direction) {
        case Direction::h2d:
            return {host, device};
        case Direction::d2h:
            return {device, host};
        case Direction::d2d:
        case Direction::p2p:
            return {device, device};
        case Direction::h2h:
            return {host, host};
    }
    return {"unknown", "unknown"};
}

}  // namespace xfer
