#include "report/render/host_nodes_text.hpp"

#include <fmt/format.h>

#include "report/render/table_run_section.hpp"  // kTableWidth
#include "util/text_table.hpp"

namespace xfer {

std::string host_nodes_text(const std::vector<HostNodes>& nodes, const std::string& what,
                            const std::string& indent) {
    std::string out;
    for (const HostNodes& n : nodes) {
        if (n.copies == 0) continue;
        std::string where;
        for (const auto& [node, copies] : n.copies_on)
            where += fmt::format("{}node {} for {}", where.empty() ? "" : ", ", node, copies);
        // The host backend's "device" is host memory: it has no node of its own.
        const std::string device =
            n.device < 0 ? "the host backend"
                         : fmt::format("device {} ({})", n.device,
                                       n.nearest_node >= 0
                                           ? fmt::format("nearest NUMA node {}", n.nearest_node)
                                           : std::string("nearest NUMA node not known"));
        out += wrap(
            fmt::format("where the bytes live, {}: {} {}, {} with sampled host pages{}{}", device,
                        n.copies, what, n.sampled,
                        where.empty() ? "" : "; the node most of a copy's pages were on: ", where),
            kTableWidth, indent, indent + "  ");
    }
    return out;
}

}  // namespace xfer
