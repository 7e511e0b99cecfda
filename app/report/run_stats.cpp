#include "report/run_stats.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "report/handoff.hpp"
#include "report/stats.hpp"

namespace xfer {

namespace {

constexpr double kNsPerS = 1e9;

double bandwidth(uint64_t bytes, int64_t ns) { return double(bytes) * kNsPerS / double(ns); }

// Host-side figures of a set of measured records, shared by the run and each worker.
struct Span {
    int64_t first = 0, last = 0;
    uint64_t bytes = 0;
    double seconds() const { return last > first ? double(last - first) / kNsPerS : 0; }
};

Span span_of(const std::vector<const Record*>& records) {
    Span s;
    if (records.empty()) return s;
    s.first = records.front()->host_start_ns;
    s.last = records.front()->host_end_ns;
    for (const Record* r : records) {
        s.first = std::min(s.first, r->host_start_ns);
        s.last = std::max(s.last, r->host_end_ns);
        s.bytes += r->bytes;
    }
    return s;
}

// Bandwidth of each copy with a positive duration (a zero-length interval has no bandwidth).
Distribution host_bandwidths(const std::vector<const Record*>& records) {
    std::vector<double> bw;
    bw.reserve(records.size());
    for (const Record* r : records) {
        if (r->host_duration_ns() > 0) bw.push_back(bandwidth(r->bytes, r->host_duration_ns()));
    }
    return distribution(std::move(bw));
}

std::optional<Distribution> device_bandwidths(const std::vector<const Record*>& records) {
    std::vector<double> bw;
    for (const Record* r : records) {
        if (r->has_device_time() && r->device_duration_ns() > 0) {
            bw.push_back(bandwidth(r->bytes, r->device_duration_ns()));
        }
    }
    if (bw.empty()) return std::nullopt;
    return distribution(std::move(bw));
}

// Bytes every record moved inside [first, last], each counted by the share of its transfer
// interval (device-side when known, else the host call) that lies inside.
double bytes_in_window(const std::vector<Record>& records, int64_t first, int64_t last,
                       size_t& warmups_inside) {
    double total = 0;
    warmups_inside = 0;
    for (const Record& r : records) {
        const int64_t begin = r.has_device_time() ? r.device_start_ns : r.host_start_ns;
        const int64_t end = r.has_device_time() ? r.device_end_ns : r.host_end_ns;
        const double inside = stats::fraction_in_window(begin, end, first, last);
        total += double(r.bytes) * inside;
        // A warm-up of no length is bytes, not a copy that shared the window.
        if (r.warmup && inside > 0 && end > begin) ++warmups_inside;
    }
    return total;
}

WorkerStats worker_stats(int worker, std::vector<const Record*> records) {
    WorkerStats w;
    w.worker = worker;
    w.copies = records.size();
    if (records.empty()) return w;
    std::sort(records.begin(), records.end(),
              [](const Record* a, const Record* b) { return a->host_start_ns < b->host_start_ns; });
    w.tid = records.front()->tid;
    w.device = records.front()->device;
    const Span s = span_of(records);
    w.bytes = s.bytes;
    w.window_s = s.seconds();
    w.Bps = w.window_s > 0 ? double(s.bytes) / w.window_s : 0;
    w.per_copy_Bps = host_bandwidths(records);
    w.device_per_copy_Bps = device_bandwidths(records);
    return w;
}

void device_figures(const std::vector<const Record*>& measured, RunAnalysis& a) {
    std::map<int, std::vector<stats::Interval>> intervals;
    std::map<int, std::set<int>> workers;
    std::vector<double> pre;
    for (const Record* r : measured) {
        if (!r->has_device_time()) continue;
        intervals[r->device].push_back({r->device_start_ns, r->device_end_ns});
        workers[r->device].insert(r->worker);
        pre.push_back(double(r->pre_device_ns()));
    }
    if (intervals.empty()) return;
    a.device_per_copy_Bps = device_bandwidths(measured);
    a.pre_device_ns = distribution(std::move(pre));
    double sum = 0;
    int peak = 0;
    for (const auto& [device, iv] : intervals) {
        DeviceStats d;
        d.device = device;
        d.workers = int(workers[device].size());
        d.copies = iv.size();
        int64_t first = iv.front().start, last = iv.front().end;
        for (const auto& i : iv) {
            first = std::min(first, i.start);
            last = std::max(last, i.end);
        }
        d.window_s = last > first ? double(last - first) / kNsPerS : 0;
        d.concurrency = stats::mean_concurrency(iv);
        d.peak = stats::peak_concurrency(iv);
        sum += d.concurrency;
        peak = std::max(peak, d.peak);
        a.devices.push_back(d);
    }
    a.device_concurrency = sum / double(a.devices.size());
    a.device_peak = peak;
}

}  // namespace

std::optional<std::pair<int64_t, int64_t>> measured_window(const std::vector<Record>& records) {
    std::vector<const Record*> measured;
    for (const Record& r : records)
        if (!r.warmup && !r.failed) measured.push_back(&r);  // as analyze_run counts them
    if (measured.empty()) return std::nullopt;
    const Span s = span_of(measured);
    return std::pair{s.first, s.last};
}

RunAnalysis analyze_run(const RunResult& run) {
    RunAnalysis a;
    a.run = run.index;
    std::vector<const Record*> measured;
    int max_worker = -1;
    a.timed_blocks = timed_blocks_of(run);
    a.staging_helpers = staging_helpers_of(run);
    for (const Record& r : run.records) {
        if (r.failed) continue;  // a timed block that raised measured nothing
        if (r.warmup) {
            ++a.warmup_copies;
            continue;
        }
        measured.push_back(&r);
        max_worker = std::max(max_worker, r.worker);
    }
    a.copies = measured.size();

    const Span s = span_of(measured);
    a.bytes = s.bytes;
    a.window_s = s.seconds();
    a.window_bytes = measured.empty()
                         ? 0
                         : bytes_in_window(run.records, s.first, s.last, a.warmup_copies_in_window);
    a.aggregate_Bps = a.window_s > 0 ? a.window_bytes / a.window_s : 0;
    a.per_copy_Bps = host_bandwidths(measured);

    std::vector<double> durations;
    std::vector<stats::Interval> host_intervals;
    for (const Record* r : measured) {
        durations.push_back(double(r->host_duration_ns()));
        host_intervals.push_back({r->host_start_ns, r->host_end_ns});
    }
    a.per_copy_ns = distribution(std::move(durations));
    // sum of durations / window: the same quantity as the aggregate's denominator sees.
    a.host_concurrency = stats::mean_concurrency(host_intervals);
    a.host_peak = stats::peak_concurrency(std::move(host_intervals));
    device_figures(measured, a);

    // Every planned worker gets a row, also one that recorded nothing: that is the most
    // unfair outcome there is, not a worker to leave out.
    const int workers = std::max(run.threads, max_worker + 1);
    std::vector<std::vector<const Record*>> by_worker(size_t(std::max(workers, 0)));
    for (const Record* r : measured) {
        if (r->worker >= 0) by_worker[size_t(r->worker)].push_back(r);
    }
    double sum_Bps = 0;
    for (int w = 0; w < workers; ++w) {
        a.workers.push_back(worker_stats(w, std::move(by_worker[size_t(w)])));
        a.per_worker_Bps.push_back(a.workers.back().Bps);
        sum_Bps += a.workers.back().Bps;
    }
    for (auto& w : a.workers) w.share = sum_Bps > 0 ? w.Bps / sum_Bps : 0;
    a.fairness = stats::jain_index(a.per_worker_Bps);
    if (!measured.empty()) handoff_figures(run, s.first, s.last, a);
    return a;
}

}  // namespace xfer
