#include "report/analysis/memory_kinds.hpp"

#include "settings/vocabulary.hpp"

namespace xfer {

std::pair<std::string, std::string> memory_kinds(const RunResult& run) {
    const std::string host = run.host_memory.empty() ? "host" : run.host_memory;
    const BackendDescriptor* backend = find_backend(run.backend);
    const std::string device = backend && !backend->has_devices ? "host" : "device";
    const auto is = [&](Direction d) { return run.direction == to_string(d); };
    if (is(Direction::h2d)) return {host, device};
    if (is(Direction::d2h)) return {device, host};
    if (is(Direction::d2d) || is(Direction::p2p)) return {device, device};
    if (is(Direction::h2h)) return {host, host};
    return {"unknown", "unknown"};
}

}  // namespace xfer
