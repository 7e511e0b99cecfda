#pragma once
// Where the host side of a run's copies lived (Record::host_node: the NUMA node most of a
// copy's sampled host pages were on), per device, against the node the device is nearest to
// (its PCI function's node, as the devices' account in the results gives it). A watched
// program's copies count where they copied pageable memory; xferlab's own, all of them.
#include <map>
#include <optional>
#include <vector>

#include "results/run_result.hpp"

namespace xfer {

struct HostNodes {
    int device = -1;
    int nearest_node = -1;            // -1: not known
    size_t copies = 0;                // measured copies counted (a watched run's: pageable ones)
    size_t sampled = 0;               // ... with a sampled node
    std::map<int, size_t> copies_on;  // node -> copies
};

// Empty where no copy of the run had its pages sampled.
std::vector<HostNodes> host_nodes(const RunResult& run,
                                  const std::optional<std::vector<BackendDevices>>& devices);

// Device -> nearest NUMA node, from the devices' accounts ("devices": [{"index", "numa_node"}]):
// a watched program's own ("watched") first, then any backend's.
std::map<int, int> nearest_nodes(const std::optional<std::vector<BackendDevices>>& devices);

}  // namespace xfer
