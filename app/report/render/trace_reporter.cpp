// trace.json in the Chrome trace event format (opens in Perfetto and chrome://tracing).
// One process per run (pid = run index + 1, named "run <index>: <label>": Perfetto treats pid 0
// as the kernel's idle task, so no run may get it) so that runs sit on separate
// track groups; in it one track per worker thread (tid = worker + 1, "run <index> <launcher>
// worker <w>") with an "X" event per copy, and one track per device/stream for device-side
// intervals when records have them ("run <index> device <d> stream <s>"). Every name says the
// run index, never the pid.
// Times: microseconds from the first record of the results, the same origin as copies.csv.
// A run of more copies than the limit (output.trace_copies) shows every k-th of them (k the
// smallest that fits), in time order per worker as recorded; "otherData" "sampled" lists
// those runs and the run's process name says so, so that no one reads the gaps as idle time.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "report/render/formats.hpp"
#include "report/render/origin.hpp"

namespace xfer {

namespace {

using nlohmann::json;

// Device tracks come after the worker tracks of a run.
constexpr int kDeviceTidBase = 1'000'000;

json metadata(const char* what, int pid, int tid, json args) {
    return json{{"ph", "M"}, {"name", what}, {"pid", pid}, {"tid", tid}, {"args", std::move(args)}};
}

double gbps(uint64_t bytes, int64_t ns) { return ns > 0 ? double(bytes) / double(ns) : 0; }

// Every `stride`-th record of a run is shown: 1 within the limit (0: no limit).
size_t stride_for(size_t copies, size_t limit) {
    return limit == 0 || copies <= limit ? 1 : (copies + limit - 1) / limit;
}

class TraceReporter : public Reporter {
  public:
    explicit TraceReporter(size_t copies_per_run) : copies_per_run_(copies_per_run) {}
    std::string name() const override { return "trace"; }

    void write(const Results& results, const Analysis&, std::ostream& out) override {
        const int64_t origin = first_record_ns(results);
        auto us = [origin](int64_t ns) { return double(ns - origin) / 1e3; };
        json events = json::array();
        json sampled = json::array();
        for (const RunResult& run : results.runs) {
            const int pid = run.position.index + 1;
            const size_t stride = stride_for(run.records.size(), copies_per_run_);
            std::string name = fmt::format("run {}: {}", run.position.index, run.position.label);
            if (stride > 1) {
                name += fmt::format(" (sampled: 1 in {} of {} copies)", stride, run.records.size());
                sampled.push_back({{"run", run.position.index},
                                   {"copies", run.records.size()},
                                   {"shown", (run.records.size() + stride - 1) / stride},
                                   {"every", stride}});
            }
            events.push_back(metadata("process_name", pid, 0, {{"name", name}}));
            events.push_back(
                metadata("process_sort_index", pid, 0, {{"sort_index", run.position.index}}));

            // Worker tracks: every worker with a record or a ThreadInfo.
            std::set<int> workers;
            for (const auto& r : run.records) workers.insert(r.worker);
            for (const auto& t : run.threads_info) {
                if (t.worker >= 0) workers.insert(t.worker);
            }
            for (int w : workers) {
                events.push_back(
                    metadata("thread_name", pid, w + 1,
                             {{"name", fmt::format("run {} {} worker {}", run.position.index,
                                                   run.settings.launcher, w)}}));
                events.push_back(metadata("thread_sort_index", pid, w + 1, {{"sort_index", w}}));
            }

            std::map<std::pair<int, uint32_t>, int> device_tracks;  // (device, stream) -> tid
            for (size_t i = 0; i < run.records.size(); i += stride) {
                const Record& r = run.records[i];
                const int64_t dur = r.host_duration_ns();
                events.push_back(json{
                    {"ph", "X"},
                    {"name", r.warmup ? "warm-up copy" : "copy"},
                    {"cat", "host"},
                    {"pid", pid},
                    {"tid", r.worker + 1},
                    {"ts", us(r.host_start_ns)},
                    {"dur", double(dur) / 1e3},
                    {"args",
                     {{"bytes", r.bytes},
                      {"GBps", gbps(r.bytes, dur)},
                      {"repetition", r.repetition},
                      {"warmup", r.warmup},
                      {"device", r.device},
                      {"cpu", r.cpu},
                      {"thread", r.tid}}},
                });
                if (!r.has_device_time()) continue;
                const auto key = std::make_pair(r.device, r.stream);
                auto it = device_tracks.find(key);
                if (it == device_tracks.end()) {
                    const int tid = kDeviceTidBase + int(device_tracks.size());
                    it = device_tracks.emplace(key, tid).first;
                    events.push_back(
                        metadata("thread_name", pid, tid,
                                 {{"name", fmt::format("run {} device {} stream {}",
                                                       run.position.index, r.device, r.stream)}}));
                    events.push_back(
                        metadata("thread_sort_index", pid, tid, {{"sort_index", tid}}));
                }
                events.push_back(json{
                    {"ph", "X"},
                    {"name", to_string(run.settings.transfer.direction)},
                    {"cat", "device"},
                    {"pid", pid},
                    {"tid", it->second},
                    {"ts", us(r.device_start_ns)},
                    {"dur", double(r.device_duration_ns()) / 1e3},
                    {"args",
                     {{"bytes", r.bytes},
                      {"GBps", gbps(r.bytes, r.device_duration_ns())},
                      {"worker", r.worker},
                      {"repetition", r.repetition},
                      {"warmup", r.warmup},
                      {"correlation_id", r.correlation}}},
                });
            }
        }
        const json trace{{"traceEvents", std::move(events)},
                         {"displayTimeUnit", "ms"},
                         {"otherData",
                          {{"tool", "xferlab"},
                           {"tool_version", results.tool_version},
                           {"git_describe", results.git_describe},
                           {"copies_per_run_limit", copies_per_run_},
                           {"sampled", std::move(sampled)}}}};
        out << trace.dump(-1, ' ', false, json::error_handler_t::replace) << "\n";
    }

  private:
    size_t copies_per_run_;
};

}  // namespace

std::unique_ptr<Reporter> make_trace_reporter(size_t copies_per_run) {
    return std::make_unique<TraceReporter>(copies_per_run);
}

}  // namespace xfer
