#include "report/analysis/run_stats.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "report/analysis/handoff.hpp"
#include "report/analysis/stats.hpp"

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
    const bool device_timed = std::all_of(records.begin(), records.end(),
                                          [](const Record* r) { return r->has_device_time(); });
    int64_t served_ns = 0;
    for (const Record* r : records)
        served_ns += device_timed ? r->device_duration_ns() : r->host_duration_ns();
    w.service_Bps = served_ns > 0 ? double(s.bytes) * kNsPerS / double(served_ns) : 0;
    w.per_copy_Bps = host_bandwidths(records);
    w.device_per_copy_Bps = device_bandwidths(records);
    return w;
}

// Most device-timed transfers on `device` in flight at once among every record whose
// transfer overlaps [first, last], warm-ups included.
int device_peak_in_flight(const std::vector<Record>& records, int device, int64_t first,
                          int64_t last) {
    std::vector<stats::Interval> iv;
    for (const Record& r : records)
        if (r.device == device && r.has_device_time() &&
            stats::fraction_in_window(r.device_start_ns, r.device_end_ns, first, last) > 0)
            iv.push_back({r.device_start_ns, r.device_end_ns});
    return stats::peak_concurrency(std::move(iv));
}

double median_of(std::vector<double> v) { return distribution(std::move(v)).p50; }

// The share of the pre-device waits of `on_device` (its measured calls) during which a transfer
// on `device` was in flight: any record's, warm-ups included (a call's own transfer starts as
// its wait ends, so it never counts for itself).
double wait_busy_fraction(int device, const std::vector<const Record*>& on_device,
                          const std::vector<Record>& records) {
    std::vector<stats::Interval> transfers;
    for (const Record& r : records)
        if (r.device == device && r.has_device_time() && !r.failed)
            transfers.push_back({r.device_start_ns, r.device_end_ns});
    const auto busy = stats::union_of(std::move(transfers));
    int64_t waited = 0, covered = 0;
    for (const Record* r : on_device) {
        const stats::Interval wait{r->host_start_ns, r->device_start_ns};
        if (wait.end <= wait.start) continue;
        waited += wait.end - wait.start;
        covered += stats::covered_within(busy, wait);
    }
    return waited > 0 ? double(covered) / double(waited) : 0;
}

DeviceStats one_device(int device, const std::vector<const Record*>& on_device,
                       const std::vector<Record>& records, int64_t first, int64_t last) {
    DeviceStats d;
    d.device = device;
    std::set<int> workers;
    std::vector<stats::Interval> iv, calls;
    std::vector<double> call_ns, wait_ns;
    for (const Record* r : on_device) {
        workers.insert(r->worker);
        iv.push_back({r->device_start_ns, r->device_end_ns});
        calls.push_back({r->host_start_ns, r->host_end_ns});
        call_ns.push_back(double(r->host_duration_ns()));
        wait_ns.push_back(double(r->pre_device_ns()));
    }
    d.workers = int(workers.size());
    d.copies = iv.size();
    int64_t lo = iv.front().start, hi = iv.front().end;
    for (const auto& i : iv) lo = std::min(lo, i.start), hi = std::max(hi, i.end);
    d.window_s = hi > lo ? double(hi - lo) / kNsPerS : 0;
    d.concurrency = stats::mean_concurrency(iv);
    d.peak = stats::peak_concurrency(iv);
    d.peak_in_flight = device_peak_in_flight(records, device, first, last);
    d.host_concurrency = stats::mean_concurrency(calls);
    d.call_p50_ns = median_of(std::move(call_ns));
    d.wait_p50_ns = median_of(std::move(wait_ns));
    d.wait_busy_fraction = wait_busy_fraction(device, on_device, records);
    return d;
}

void device_figures(const std::vector<Record>& records, const std::vector<const Record*>& measured,
                    int64_t first, int64_t last, RunAnalysis& a) {
    std::map<int, std::vector<const Record*>> by_device;
    std::vector<stats::Interval> all;
    std::vector<double> pre, transfer, calls;
    for (const Record* r : measured) {
        if (!r->has_device_time()) continue;
        by_device[r->device].push_back(r);
        all.push_back({r->device_start_ns, r->device_end_ns});
        pre.push_back(double(r->pre_device_ns()));
        calls.push_back(double(r->host_duration_ns()));
        transfer.push_back(double(r->device_duration_ns()));
    }
    if (by_device.empty()) return;
    a.device_per_copy_Bps = device_bandwidths(measured);
    a.pre_device_ns = distribution(std::move(pre));
    a.timed_call_p50_ns = median_of(std::move(calls));
    a.transfer_ns = distribution(std::move(transfer));
    double sum = 0;
    int peak = 0;
    for (const auto& [device, on_device] : by_device) {
        a.devices.push_back(one_device(device, on_device, records, first, last));
        sum += a.devices.back().concurrency;
        peak = std::max(peak, a.devices.back().peak);
    }
    a.device_concurrency = sum / double(a.devices.size());
    a.device_peak = peak;
    a.device_concurrency_all = stats::mean_concurrency(all);
    a.device_peak_all = stats::peak_concurrency(std::move(all));
}

// Most calls in flight at once among every record whose call overlaps [first, last]: warm-ups
// and failed blocks are calls too.
int calls_peak_in_flight(const std::vector<Record>& records, int64_t first, int64_t last) {
    std::vector<stats::Interval> iv;
    for (const Record& r : records)
        if (stats::fraction_in_window(r.host_start_ns, r.host_end_ns, first, last) > 0)
            iv.push_back({r.host_start_ns, r.host_end_ns});
    return stats::peak_concurrency(std::move(iv));
}

// The share of [first, last] with no call in flight among every record whose call overlaps it
// (warm-ups and failed blocks are calls too).
double idle_fraction(const std::vector<Record>& records, int64_t first, int64_t last) {
    if (last <= first) return 0;
    std::vector<stats::Interval> calls;
    for (const Record& r : records) calls.push_back({r.host_start_ns, r.host_end_ns});
    const int64_t covered = stats::covered_within(stats::union_of(std::move(calls)), {first, last});
    return 1.0 - double(covered) / double(last - first);
}

// Jain's index over the workers' service rates without the copy served slowest: the one whose
// service time (as worker_stats counts it: its transfer when every copy of its worker has device
// times, else its call) is longest. A call that only waited behind another is not that copy.
// Nullopt when that copy was its worker's only one.
std::optional<double> service_jain_without_slowest(
    const std::vector<std::vector<const Record*>>& by_worker) {
    size_t slow_worker = 0, slow_at = 0;
    int64_t slowest = -1;
    for (size_t w = 0; w < by_worker.size(); ++w) {
        const auto& mine = by_worker[w];
        const bool device_timed = std::all_of(mine.begin(), mine.end(), [](const Record* r) {
            return r->has_device_time();
        });
        for (size_t k = 0; k < mine.size(); ++k) {
            const int64_t served =
                device_timed ? mine[k]->device_duration_ns() : mine[k]->host_duration_ns();
            if (served > slowest) {
                slowest = served;
                slow_worker = w;
                slow_at = k;
            }
        }
    }
    if (slowest < 0 || by_worker[slow_worker].size() < 2) return std::nullopt;
    std::vector<double> served;
    for (size_t w = 0; w < by_worker.size(); ++w) {
        std::vector<const Record*> mine = by_worker[w];
        if (w == slow_worker) mine.erase(mine.begin() + std::ptrdiff_t(slow_at));
        served.push_back(worker_stats(int(w), std::move(mine)).service_Bps);
    }
    return stats::jain_index(served);
}

// The slowest measured call and, where it has device times, its wait and its transfer.
void slowest_call(const std::vector<const Record*>& measured, RunAnalysis& a) {
    const Record* slowest = nullptr;
    for (const Record* r : measured)
        if (!slowest || r->host_duration_ns() > slowest->host_duration_ns()) slowest = r;
    if (!slowest) return;
    a.slowest_call_ns = double(slowest->host_duration_ns());
    if (slowest->has_device_time()) {
        a.slowest_wait_ns = double(slowest->pre_device_ns());
        a.slowest_transfer_ns = double(slowest->device_duration_ns());
    }
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
    a.run = run.position.index;
    std::vector<const Record*> measured;
    int max_worker = -1;
    a.timed_blocks = timed_blocks_of(run);
    a.staging_helpers = staging_helpers_of(run);
    a.gap_stages = gap_stages_of(run);
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
    a.calls_hold_transfers =
        std::all_of(measured.begin(), measured.end(), [](const Record* r) {
            return !r->has_device_time() || r->device_end_ns <= r->host_end_ns;
        });
    // sum of durations / window: the same quantity as the aggregate's denominator sees.
    a.host_concurrency = stats::mean_concurrency(host_intervals);
    a.host_peak = stats::peak_concurrency(std::move(host_intervals));
    if (!measured.empty()) {
        a.host_peak_in_flight = calls_peak_in_flight(run.records, s.first, s.last);
        a.idle_fraction = idle_fraction(run.records, s.first, s.last);
        device_figures(run.records, measured, s.first, s.last, a);
        slowest_call(measured, a);
    }

    // Every planned worker gets a row, also one that recorded nothing: that is the most
    // unfair outcome there is, not a worker to leave out.
    const int workers = std::max(run.settings.threads.count, max_worker + 1);
    std::vector<std::vector<const Record*>> by_worker(size_t(std::max(workers, 0)));
    for (const Record* r : measured) {
        if (r->worker >= 0) by_worker[size_t(r->worker)].push_back(r);
    }
    a.service_jain_without_slowest = service_jain_without_slowest(by_worker);
    double sum_Bps = 0;
    std::vector<double> served;
    for (int w = 0; w < workers; ++w) {
        a.workers.push_back(worker_stats(w, std::move(by_worker[size_t(w)])));
        a.per_worker_Bps.push_back(a.workers.back().Bps);
        served.push_back(a.workers.back().service_Bps);
        sum_Bps += a.workers.back().Bps;
    }
    for (auto& w : a.workers) w.share = sum_Bps > 0 ? w.Bps / sum_Bps : 0;
    a.fairness_jain = stats::jain_index(a.per_worker_Bps);
    a.service_jain = stats::jain_index(served);
    for (const WorkerStats& w : a.workers)
        if (a.least_served_worker < 0 ||
            w.service_Bps < a.workers[size_t(a.least_served_worker)].service_Bps)
            a.least_served_worker = w.worker;
    if (!measured.empty()) handoff_figures(run, s.first, s.last, a);
    return a;
}

}  // namespace xfer
