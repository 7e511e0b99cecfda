#include "report/analysis/watched.hpp"

#include <algorithm>
#include <array>
#include <limits>
#include <set>

#include "report/analysis/stats.hpp"
#include "results/copy_kinds.hpp"

namespace xfer {
namespace {

constexpr uint64_t KiB = 1024, MiB = KiB * 1024;
constexpr std::array<uint64_t, 4> kClassBounds = {64 * KiB, MiB, 16 * MiB, 256 * MiB};

// The copy's host side: the source of a copy to a device or host, the destination of one from
// a device.
uint8_t host_kind(const Record& r) {
    switch (r.copy_kind) {
        case copy_kind::dtoh:
        case 4:
            return r.dst_kind;  // DtoH, AtoH
        case copy_kind::htod:
        case 3:
        case copy_kind::htoh:
            return r.src_kind;
        default:
            return 0;
    }
}

bool pageable(const Record& r) { return host_kind(r) == memory_kind::pageable; }

const char* direction_of(uint8_t kind) {
    switch (kind) {
        case copy_kind::htod:
        case 3:
            return "h2d";
        case copy_kind::dtoh:
        case 4:
            return "d2h";
        default:
            return "";
    }
}

std::string kind_text(const Record& r) {
    return std::string(copy_kind_name(r.copy_kind)) + " " + memory_kind_name(r.src_kind) + " -> " +
           memory_kind_name(r.dst_kind);
}

double p50(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return stats::percentile_sorted(v, 0.5);
}

void add_groups(const std::vector<Record>& records, WatchedStats& s) {
    std::map<std::pair<std::string, size_t>, std::pair<WatchedGroup, std::vector<double>>> by;
    for (const Record& r : records) {
        const uint64_t* bound = std::upper_bound(kClassBounds.begin(), kClassBounds.end(), r.bytes);
        auto& [g, rates] = by[{kind_text(r), size_t(bound - kClassBounds.begin())}];
        g.kind = kind_text(r);
        g.size_class = size_class(r.bytes);
        ++g.copies;
        g.bytes += r.bytes;
        g.call_ns += r.host_duration_ns();
        if (r.has_device_time()) {
            g.device_ns += r.device_duration_ns();
            if (r.device_duration_ns() > 0)
                rates.push_back(double(r.bytes) * 1e9 / double(r.device_duration_ns()));
        }
    }
    for (auto& [key, v] : by) {
        v.first.p50_device_Bps = p50(std::move(v.second));
        s.groups.push_back(std::move(v.first));
    }
}

}  // namespace

std::string size_class(uint64_t bytes) {
    if (bytes < kClassBounds[0]) return "< 64 KiB";
    if (bytes < kClassBounds[1]) return "64 KiB - 1 MiB";
    if (bytes < kClassBounds[2]) return "1 MiB - 16 MiB";
    if (bytes < kClassBounds[3]) return "16 MiB - 256 MiB";
    return ">= 256 MiB";
}

WatchedStats watched_stats(const RunResult& run) {
    WatchedStats s;
    const std::vector<Record>& records = run.records;
    add_groups(records, s);
    // Each device's transfers together: a wait "for another transfer" is a wait while one was
    // on the device (a call's own transfer starts as its wait ends).
    std::map<int, std::vector<stats::Interval>> busy;
    for (const Record& r : records)
        if (r.has_device_time()) busy[r.device].push_back({r.device_start_ns, r.device_end_ns});
    for (auto& [device, iv] : busy) iv = stats::union_of(std::move(iv));
    std::map<int, WatchedThread> threads;
    for (const Record& r : records) {
        WatchedThread& t = threads[r.worker];
        t.worker = r.worker;
        t.pid = r.pid;
        t.tid = r.tid;
        ++t.copies;
        t.bytes += r.bytes;
        t.call_ns += r.host_duration_ns();
        if (pageable(r)) t.pageable_ns += r.host_duration_ns();
        if (r.has_device_time() && r.device_start_ns > r.host_start_ns) {
            const stats::Interval wait{r.host_start_ns, r.device_start_ns};
            t.wait_ns += wait.end - wait.start;
            t.wait_busy_ns += stats::covered_within(busy[r.device], wait);
        }
    }
    for (const ThreadInfo& info : run.threads_info)
        if (auto it = threads.find(info.worker); it != threads.end()) it->second.name = info.name;
    for (auto& [w, t] : threads) {
        s.call_ns += t.call_ns;
        s.pageable_ns += t.pageable_ns;
        s.wait_ns += t.wait_ns;
        s.wait_busy_ns += t.wait_busy_ns;
        s.threads.push_back(std::move(t));
    }
    return s;
}

std::vector<WatchedReference> watched_references(const Results& results, size_t watched,
                                                 const std::vector<double>& aggregates) {
    std::vector<WatchedReference> out;
    const RunResult& program = results.runs[watched];
    for (size_t i = 0; i < results.runs.size(); ++i) {
        const RunResult& r = results.runs[i];
        const std::string& label = r.position.label;
        const bool reference = label.rfind(std::string(kReferenceLabel) + " ", 0) == 0;
        const bool calibrate = label.rfind(std::string(kCalibrateLabel) + " ", 0) == 0;
        if (i == watched || (!reference && !calibrate) || r.status != RunStatus::ok ||
            r.settings.transfer.devices.size() != 1 || i >= aggregates.size() || aggregates[i] <= 0)
            continue;
        WatchedReference ref;
        ref.run = r.position.index;
        ref.label = label;
        ref.calibrate = calibrate;
        ref.device = r.settings.transfer.devices.front();
        ref.direction = to_string(r.settings.transfer.direction);
        ref.bytes = r.settings.transfer.bytes;
        ref.threads = r.settings.threads.count;
        ref.aggregate_Bps = aggregates[i];
        std::vector<double> rates;
        int64_t first = std::numeric_limits<int64_t>::max();
        int64_t last = std::numeric_limits<int64_t>::min();
        uint64_t bytes = 0;
        for (const Record& c : program.records) {
            if (c.device != ref.device || direction_of(c.copy_kind) != ref.direction ||
                !c.has_device_time() || c.device_duration_ns() <= 0)
                continue;
            rates.push_back(double(c.bytes) * 1e9 / double(c.device_duration_ns()));
            first = std::min(first, c.device_start_ns);
            last = std::max(last, c.device_end_ns);
            bytes += c.bytes;
        }
        ref.program_copies = rates.size();
        if (!rates.empty()) {
            ref.program_p50_Bps = p50(std::move(rates));
            if (last > first) ref.program_window_Bps = double(bytes) * 1e9 / double(last - first);
        }
        out.push_back(std::move(ref));
    }
    return out;
}

void to_json(nlohmann::json& j, const WatchedStats& s) {
    j = nlohmann::json{{"call_ns", s.call_ns},
                       {"pageable_ns", s.pageable_ns},
                       {"wait_ns", s.wait_ns},
                       {"wait_busy_ns", s.wait_busy_ns}};
    j["groups"] = nlohmann::json::array();
    for (const auto& g : s.groups)
        j["groups"].push_back({{"kind", g.kind},
                               {"size_class", g.size_class},
                               {"copies", g.copies},
                               {"bytes", g.bytes},
                               {"call_ns", g.call_ns},
                               {"device_ns", g.device_ns},
                               {"p50_device_Bps", g.p50_device_Bps}});
    j["threads"] = nlohmann::json::array();
    for (const auto& t : s.threads)
        j["threads"].push_back({{"worker", t.worker},
                                {"pid", t.pid},
                                {"tid", t.tid},
                                {"name", t.name},
                                {"copies", t.copies},
                                {"bytes", t.bytes},
                                {"call_ns", t.call_ns},
                                {"pageable_ns", t.pageable_ns},
                                {"wait_ns", t.wait_ns},
                                {"wait_busy_ns", t.wait_busy_ns}});
    j["references"] = nlohmann::json::array();
    for (const auto& r : s.references)
        j["references"].push_back({{"run", r.run},
                                   {"label", r.label},
                                   {"calibrate", r.calibrate},
                                   {"device", r.device},
                                   {"direction", r.direction},
                                   {"bytes", r.bytes},
                                   {"threads", r.threads},
                                   {"aggregate_Bps", r.aggregate_Bps},
                                   {"program_p50_Bps", r.program_p50_Bps},
                                   {"program_window_Bps", r.program_window_Bps},
                                   {"program_copies", r.program_copies}});
}

}  // namespace xfer
