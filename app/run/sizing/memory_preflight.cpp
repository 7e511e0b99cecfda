#include "run/sizing/memory_preflight.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "util/units.hpp"

namespace xfer {

void add_run_need(PlanMemory& peak, const Backend::Need& need, int processes) {
    const uint64_t one = processes > 1 ? need.host_bytes / uint64_t(processes) : need.host_bytes;
    peak.all = std::max(peak.all, need.host_bytes);
    peak.one_process = std::max(peak.one_process, one);
}

std::string memory_problem(const PlanMemory& need, const MemoryBudget& budget) {
    const uint64_t total = budget.total();
    if (total > 0 && need.all > total) {
        return fmt::format(
            "the largest run needs {} of host memory, more than this machine has ({} in all); "
            "lower transfer.bytes or threads.count",
            format_size(need.all), format_size(total));
    }
    // The binding limit is the one with the least left for what it counts.
    const MemoryLimit* binding = nullptr;
    uint64_t binding_need = 0;
    for (const MemoryLimit& m : budget.limits) {
        const uint64_t n = m.kind == MemoryLimit::Kind::address_space ? need.one_process : need.all;
        if (n <= m.left) continue;
        if (!binding || m.left < binding->left) binding = &m, binding_need = n;
    }
    if (!binding) return {};
    const bool per_process =
        binding->kind == MemoryLimit::Kind::address_space && need.one_process != need.all;
    return fmt::format(
        "the largest run needs {} of host memory{} but {}; lower transfer.bytes "
        "or threads.count",
        format_size(binding_need), per_process ? " per worker process" : "", describe(*binding));
}

}  // namespace xfer
