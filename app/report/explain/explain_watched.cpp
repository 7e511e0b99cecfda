// Where a run's host pages lived against each device's nearest node (any run whose pages were
// sampled: a watched program's pageable copies, xferlab's own workers' buffers), and a watched
// program's copies against what xferlab timed on the same device after it ended. Both
// observations: no switch in the run moves the pages or pins the memory.
#include <fmt/format.h>

#include "report/explain/explain_rules_internal.hpp"
#include "util/format.hpp"

namespace xfer::explain {

void far_node(const RuleInput& in, std::vector<Finding>& out) {
    const bool watched = in.a().watched.has_value();
    for (const HostNodes& n : in.a().host_nodes) {
        if (n.nearest_node < 0 || n.sampled == 0) continue;
        for (const auto& [node, copies] : n.copies_on) {
            if (node == n.nearest_node) continue;
            out.push_back(Finding{}
                              .say("device {device}: the host pages of {far} of the {sampled} "
                                   "sampled {what} were mostly on NUMA node {node}, not on the "
                                   "device's nearest node {nearest}")
                              .claim("device", std::to_string(n.device))
                              .figure("far", double(copies), std::to_string(copies))
                              .figure("sampled", double(n.sampled), std::to_string(n.sampled))
                              .claim("what", watched ? "pageable copies" : "copies")
                              .claim("node", std::to_string(node))
                              .claim("nearest", std::to_string(n.nearest_node)));
        }
    }
}

void watched_reference(const RuleInput& in, std::vector<Finding>& out) {
    const auto& w = in.a().watched;
    if (!w) return;
    for (const WatchedReference& r : w->references) {
        if (r.program_copies == 0) continue;
        const std::string what =
            r.calibrate ? fmt::format("xferlab.copy of {} ({} thread{})", fmtx::size(r.bytes),
                                      r.threads, r.threads == 1 ? "" : "s")
                        : fmt::format("a page-locked copy of {}", fmtx::size(r.bytes));
        out.push_back(Finding{}
                          .say("device {device} {direction}: the program's copies moved {rate} "
                               "per copy (p50, device-timed); xferlab timed {what} here after "
                               "it ended at {reference} ({run}): how far apart is not tested "
                               "(one trial)")
                          .claim("device", std::to_string(r.device))
                          .claim("direction", r.direction)
                          .figure("rate", r.program_p50_Bps, fmtx::gbps_unit(r.program_p50_Bps))
                          .claim("what", what)
                          .figure("reference", r.aggregate_Bps, fmtx::gbps_unit(r.aggregate_Bps))
                          .runs("run", {r.run}));
    }
}

}  // namespace xfer::explain
