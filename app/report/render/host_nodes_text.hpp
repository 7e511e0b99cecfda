#pragma once
// The report's line per device on where the host side of a run's copies lived
// (report/analysis/host_nodes.hpp): the watched program's section and every run's section of
// the full report print it.
#include <string>
#include <vector>

#include "report/analysis/host_nodes.hpp"

namespace xfer {

// "where the bytes live, device 0 (nearest NUMA node 1): 16 pageable copies, 16 with sampled
// host pages; the node most of a copy's pages were on: node 0 for 16" ("where the bytes live,
// the host backend: ..." for device -1), wrapped, each line starting with `indent`; `what`
// names the copies ("pageable copies", "copies").
std::string host_nodes_text(const std::vector<HostNodes>& nodes, const std::string& what,
                            const std::string& indent);

}  // namespace xfer
