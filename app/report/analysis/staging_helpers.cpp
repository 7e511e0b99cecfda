#include "report/analysis/staging_helpers.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "results/serialize.hpp"
#include "util/format.hpp"

namespace xfer {

std::vector<StagingHelperStats> staging_helpers_of(const RunResult& run) {
    std::vector<StagingHelperStats> out;  // in the order the engines first appear
    std::map<std::string, std::set<int>> pids;
    for (const HelperThread& h : run.helper_threads) {
        if (h.work.empty()) continue;
        auto it = std::find_if(out.begin(), out.end(), [&](const StagingHelperStats& s) {
            return s.launcher == h.thread.launcher;
        });
        if (it == out.end()) it = out.insert(out.end(), {.launcher = h.thread.launcher});
        auto& seen = pids[h.thread.launcher];
        seen.insert(h.thread.pid);
        it->processes = seen.size();
        ++it->helpers;
        int64_t busy = 0;
        for (const auto& span : h.busy) busy += span[1] - span[0];
        const HelperWork& w = h.work;
        // Spans past kMaxBusySpans are not kept: never report less busy time than was accounted.
        it->busy_ns += std::max(busy, w.copy_ns + w.start_ns + w.wait_ns);
        it->work += w;
    }
    return out;
}

std::vector<std::string> staging_helper_lines(const std::vector<StagingHelperStats>& stats) {
    std::vector<std::string> lines;
    for (const StagingHelperStats& s : stats) {
        const double busy = double(std::max<int64_t>(s.busy_ns, 1));
        const HelperWork& w = s.work;
        const int64_t other = std::max<int64_t>(s.busy_ns - w.copy_ns - w.start_ns - w.wait_ns, 0);
        std::string copying =
            w.copied_bytes > 0
                ? fmt::format("copying {} ({} per helper while copying), ",
                              fmtx::percent(double(w.copy_ns) / busy),
                              fmtx::gbps_unit(double(w.copied_bytes) * 1e9 /
                                              double(std::max<int64_t>(w.copy_ns, 1))))
                : std::string("no host copies (page-locked memory, DMA'd in place), ");
        lines.push_back(fmt::format(
            "{}: {} helper{}{}, {} chunks; of their busy time {}starting DMAs {}, waiting for "
            "DMAs {}, taking work {}",
            s.launcher, s.helpers, s.helpers == 1 ? "" : "s",
            s.processes > 1 ? fmt::format(" in {} processes (an engine each)", s.processes) : "",
            w.chunks, copying,
            fmtx::percent(double(w.start_ns) / busy), fmtx::percent(double(w.wait_ns) / busy),
            fmtx::percent(double(other) / busy)));
    }
    return lines;
}

void to_json(nlohmann::json& j, const StagingHelperStats& s) {
    j = s.work;  // chunks, copied_bytes, copy_ns, start_ns, wait_ns
    j["launcher"] = s.launcher;
    j["processes"] = s.processes;
    j["helpers"] = s.helpers;
    j["busy_ns"] = s.busy_ns;
}

}  // namespace xfer
