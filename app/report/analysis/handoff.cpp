#include "report/analysis/handoff.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "report/analysis/stats.hpp"

namespace xfer {

namespace {

// Gaps of every worker. A gap counts when the copy after it is measured (not a warm-up, not a
// block that raised): the gap before the first measured copy is the same return-to-the-driver
// as any other (the warm-up is a copy like the others), while the first copy has no gap before
// it.
void worker_gaps(const std::vector<Record>& records, RunAnalysis& a) {
    const auto before = gaps_before(records);
    std::map<int, std::vector<double>> by_worker, by_device;
    std::vector<double> all;
    for (size_t i = 0; i < records.size(); ++i) {
        if (records[i].warmup || records[i].failed || !before[i]) continue;
        by_worker[records[i].worker].push_back(double(*before[i]));
        by_device[records[i].device].push_back(double(*before[i]));
        all.push_back(double(*before[i]));
    }
    for (HandoffStats& h : a.handoffs)
        if (auto it = by_device.find(h.device); it != by_device.end())
            h.gap_ns = distribution(std::move(it->second));
    for (auto& [worker, gaps] : by_worker) {
        if (worker < 0 || size_t(worker) >= a.workers.size()) continue;
        a.workers[size_t(worker)].gap_ns = distribution(std::move(gaps));
    }
    if (!all.empty()) a.gap_ns = distribution(std::move(all));
}

struct Entry {
    int64_t start = 0;
    int worker = 0;
    bool warmup = false;
};

// Copies in flight within each (process, context): serialization per context shows as a peak
// of 1 inside every context while the device as a whole has more in flight.
void context_figures(const std::vector<const Record*>& records, int64_t first, int64_t last,
                     HandoffStats& h) {
    std::map<std::pair<int, uint32_t>, std::vector<stats::Interval>> by_context;
    std::map<std::pair<int, uint32_t>, std::set<int>> workers;
    for (const Record* r : records) {
        if (r->context == 0 || (r->failed && !r->warmup)) continue;
        if (r->warmup &&
            stats::fraction_in_window(r->device_start_ns, r->device_end_ns, first, last) == 0)
            continue;
        by_context[{r->pid, r->context}].push_back({r->device_start_ns, r->device_end_ns});
        workers[{r->pid, r->context}].insert(r->worker);
    }
    h.contexts = int(by_context.size());
    for (auto& [key, iv] : by_context) {
        h.context_peak = std::max(h.context_peak, stats::peak_concurrency(std::move(iv)));
        h.context_workers = std::max(h.context_workers, int(workers[key].size()));
    }
}

// One device's sequence. Warm-up copies whose transfer overlaps the measured window are part
// of it: they held the device, and leaving one out would hide two hand-offs (the same rule as
// the aggregate's window bytes). Warm-ups wholly before the window are the start, not the loop.
// (device, worker) -> (runs, copies in them): a worker's runs on each device apart.
using WorkerRuns = std::map<std::pair<int, int>, std::pair<size_t, size_t>>;

HandoffStats device_sequence(int device, const std::vector<const Record*>& records, int64_t first,
                             int64_t last, WorkerRuns& worker_runs) {
    HandoffStats h;
    h.device = device;
    // One clock for the whole sequence: device starts when every copy has them.
    const bool device_clock = std::all_of(records.begin(), records.end(),
                                          [](const Record* r) { return r->has_device_time(); });
    h.clock = device_clock ? "device" : "host";
    std::vector<Entry> seq;
    for (const Record* r : records) {
        const int64_t begin = device_clock ? r->device_start_ns : r->host_start_ns;
        const int64_t end = device_clock ? r->device_end_ns : r->host_end_ns;
        if (r->failed && !r->warmup) continue;  // a block that raised measured nothing
        if (r->warmup && stats::fraction_in_window(begin, end, first, last) == 0) continue;
        seq.push_back({begin, r->worker, r->warmup});
    }
    std::stable_sort(seq.begin(), seq.end(),
                     [](const Entry& x, const Entry& y) { return x.start < y.start; });
    std::set<int> workers;
    size_t run_start = 0;
    for (size_t i = 0; i < seq.size(); ++i) {
        (seq[i].warmup ? h.warmup_copies : h.copies) += 1;
        workers.insert(seq[i].worker);
        const bool run_ends = i + 1 == seq.size() || seq[i + 1].worker != seq[i].worker;
        if (!run_ends) continue;
        if (i + 1 < seq.size()) ++h.handoffs;
        auto& [runs, copies] = worker_runs[{device, seq[i].worker}];
        ++runs;
        copies += i + 1 - run_start;
        run_start = i + 1;
    }
    h.workers = int(workers.size());
    if (device_clock) context_figures(records, first, last, h);
    const size_t n = seq.size();
    h.handoff_rate = n > 1 ? double(h.handoffs) / double(n - 1) : 0;
    h.mean_run_length = n > 0 ? double(n) / double(h.handoffs + 1) : 0;
    return h;
}

}  // namespace

std::vector<std::optional<int64_t>> gaps_before(const std::vector<Record>& records) {
    std::vector<std::optional<int64_t>> out(records.size());
    std::map<int, std::vector<size_t>> by_worker;
    for (size_t i = 0; i < records.size(); ++i) by_worker[records[i].worker].push_back(i);
    for (auto& [worker, idx] : by_worker) {
        std::stable_sort(idx.begin(), idx.end(), [&](size_t x, size_t y) {
            return records[x].host_start_ns < records[y].host_start_ns;
        });
        for (size_t k = 1; k < idx.size(); ++k) {
            out[idx[k]] = records[idx[k]].host_start_ns - records[idx[k - 1]].host_end_ns;
        }
    }
    return out;
}

void handoff_figures(const RunResult& run, int64_t first, int64_t last, RunAnalysis& a) {
    std::map<int, int64_t> first_call;
    for (const Record& r : run.records) {
        auto [it, fresh] = first_call.emplace(r.worker, r.host_start_ns);
        if (!fresh) it->second = std::min(it->second, r.host_start_ns);
    }
    int64_t lo = first_call.begin()->second, hi = lo;
    for (const auto& [worker, t] : first_call) lo = std::min(lo, t), hi = std::max(hi, t);
    a.start_spread_ns = double(hi - lo);
    std::map<int, std::vector<const Record*>> by_device;
    for (const Record& r : run.records) by_device[r.device].push_back(&r);
    WorkerRuns worker_runs;
    for (const auto& [device, records] : by_device) {
        HandoffStats h = device_sequence(device, records, first, last, worker_runs);
        if (h.copies > 0) a.handoffs.push_back(std::move(h));
    }
    worker_gaps(run.records, a);  // after the devices' sequences: it fills their gaps too
    // A worker's run length is on its own device (that of its first measured copy).
    for (const auto& [key, rc] : worker_runs) {
        const auto [device, worker] = key;
        if (worker < 0 || size_t(worker) >= a.workers.size() || rc.first == 0) continue;
        WorkerStats& w = a.workers[size_t(worker)];
        if (w.device != device) continue;
        w.run_length = double(rc.second) / double(rc.first);
        w.sequence_copies = rc.second;
    }
}

}  // namespace xfer
