#include "report/analysis/timed_blocks.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "util/format.hpp"

namespace xfer {

TimedBlocks timed_blocks_of(const RunResult& run) {
    TimedBlocks t;
    for (const auto& label : run.copy_sources) t.labels.push_back({.label = label});
    std::set<int> workers;
    std::map<uint32_t, TimedBlockStats*> by_tag;
    for (const Record& r : run.records) {
        if (!r.foreign()) continue;
        if (r.source > t.labels.size()) t.labels.resize(r.source, {.label = "(unlabelled)"});
        TimedBlockStats& s = t.labels[r.source - 1];
        workers.insert(r.worker);
        ++s.blocks;
        if (r.warmup) ++s.warmup;
        if (r.failed) ++s.failed;
        if (r.device_calls >= 0) {
            ++s.traced;
            s.calls += r.device_calls;
            s.gil_held_calls += r.gil_held_calls;
            if (r.device_timing == DeviceTiming::cupti) {
                ++s.with_device_copy;
                if (r.device_end_ns > r.host_end_ns) {
                    ++s.returned_early;
                    s.max_overhang_ns = std::max(s.max_overhang_ns, r.device_end_ns - r.host_end_ns);
                }
            }
        }
        if (r.correlation != 0) by_tag[r.correlation] = &s;
    }
    for (const DeviceCopy& c : run.device_copies) {
        auto it = by_tag.find(c.correlation);
        if (it == by_tag.end()) continue;
        ++it->second->device_copies;
        ++it->second->kinds[c.kind + " " + c.src + "->" + c.dst];
    }
    t.workers.assign(workers.begin(), workers.end());
    for (const auto& [worker, how] : run.payload_verified)
        if (workers.count(worker)) t.verified[worker] = how;
    return t;
}

namespace {

std::string kinds_text(const TimedBlockStats& s) {
    std::string out;
    for (const auto& [kind, n] : s.kinds)
        out += fmt::format("{}{} {}", out.empty() ? "" : ", ", n, kind);
    return out;
}

std::string gil_text(const TimedBlockStats& s) {
    if (s.calls == 0) return "";
    if (s.gil_held_calls == 0) return fmt::format("; GIL released in all {} memcpy calls", s.calls);
    if (s.gil_held_calls == s.calls)
        return fmt::format(
            "; GIL held in all {} memcpy calls (the framework keeps it across its "
            "copy)",
            s.calls);
    return fmt::format("; GIL held in {} of {} memcpy calls", s.gil_held_calls, s.calls);
}

}  // namespace

std::vector<std::string> timed_block_lines(const TimedBlocks& t) {
    std::vector<std::string> lines;
    for (const TimedBlockStats& s : t.labels) {
        if (s.blocks == 0) continue;
        std::string line =
            fmt::format("timed blocks '{}': {} ({} warm-up{})", s.label, s.blocks, s.warmup,
                        s.failed ? fmt::format(", {} failed", s.failed) : "");
        if (s.traced == 0) {
            line += "; device copies not traced here (no CUPTI tracer: host backend)";
        } else {
            line += fmt::format("; {} device cop{} joined", s.device_copies,
                                s.device_copies == 1 ? "y" : "ies");
            if (!s.kinds.empty()) line += " (" + kinds_text(s) + ")";
            if (s.with_device_copy < s.traced)
                line += fmt::format("; {} of {} blocks issued no device copy",
                                    s.traced - s.with_device_copy, s.traced);
            if (s.returned_early > 0)
                line += fmt::format("; {} of {} blocks returned before their device copies ended "
                                    "(by up to {}): they time the call, not the bytes' arrival",
                                    s.returned_early, s.with_device_copy,
                                    fmtx::duration(double(s.max_overhang_ns)));
            line += gil_text(s);
        }
        lines.push_back(line);
    }
    if (t.workers.empty()) return lines;
    if (t.verified.empty()) {
        lines.push_back(
            "timed blocks' bytes not verified: the payload did not check them "
            "(w.verified)");
    } else {
        std::set<std::string> hows;
        for (const auto& [worker, how] : t.verified) hows.insert(how);
        std::string how;
        for (const auto& h : hows) how += (how.empty() ? "" : "; ") + h;
        lines.push_back(
            fmt::format("timed blocks' bytes verified by the payload for {} of {} "
                        "workers ({})",
                        t.verified.size(), t.workers.size(), how));
    }
    return lines;
}

void to_json(nlohmann::json& j, const TimedBlocks& t) {
    j = nlohmann::json::array();
    for (const TimedBlockStats& s : t.labels)
        j.push_back({{"label", s.label},
                     {"blocks", s.blocks},
                     {"warmup", s.warmup},
                     {"failed", s.failed},
                     {"traced", s.traced},
                     {"with_device_copy", s.with_device_copy},
                     {"device_copies", s.device_copies},
                     {"memcpy_calls", s.calls},
                     {"gil_held_calls", s.gil_held_calls},
                     {"returned_early", s.returned_early},
                     {"max_overhang_ns", s.max_overhang_ns},
                     {"kinds", s.kinds}});
}

}  // namespace xfer
