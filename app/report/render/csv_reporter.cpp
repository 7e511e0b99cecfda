// copies.csv: one row per copy, warm-up copies included (warmup = 1), in nvprof's vocabulary.
// Times are ns relative to the first record of the results, so runs line up on one axis.
// Columns are documented in docs/reading-reports.md.
#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <string>

#include "report/analysis/handoff.hpp"
#include "report/analysis/memory_kinds.hpp"
#include "report/render/origin.hpp"
#include "report/render/csv_reporter.hpp"
#include "report/render/formats.hpp"

namespace xfer {

namespace {

constexpr const char* kHeader =
    "run,label,launcher,worker,repetition,warmup,start_ns,duration_ns,size_bytes,"
    "throughput_GBps,src_kind,dst_kind,device,context,stream,device_start_ns,"
    "device_duration_ns,pre_device_ns,thread,pid,cpu,device_timing,correlation_id,gap_ns,between_ns\n";

class CsvReporter : public Reporter {
  public:
    std::string name() const override { return "csv"; }

    void write(const Results& results, const Analysis&, std::ostream& stream) override {
        const int64_t origin = first_record_ns(results);
        std::string out = kHeader;
        for (const RunResult& run : results.runs) {
            const auto [src, dst] = memory_kinds(run);
            const std::string label = csv_field(run.position.label);
            const std::string launcher = csv_field(run.settings.launcher);
            const auto gaps = gaps_before(run.records);
            for (size_t i = 0; i < run.records.size(); ++i) {
                const Record& r = run.records[i];
                const int64_t dur = r.host_duration_ns();
                // bytes per ns is GB/s (10^9 B/s).
                const std::string gbps =
                    dur > 0 ? fmt::format("{:.6g}", double(r.bytes) / double(dur)) : "";
                const bool dev = r.has_device_time();
                fmt::format_to(
                    std::back_inserter(out),
                    "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n",
                    run.position.index, label, launcher, r.worker, r.repetition, r.warmup ? 1 : 0,
                    r.host_start_ns - origin, dur, r.bytes, gbps, csv_field(src), csv_field(dst),
                    r.device, r.context, r.stream,
                    dev ? std::to_string(r.device_start_ns - origin) : "",
                    dev ? std::to_string(r.device_duration_ns()) : "",
                    dev ? std::to_string(r.pre_device_ns()) : "", r.tid, r.pid, r.cpu,
                    to_string(r.device_timing), r.correlation,
                    gaps[i] ? std::to_string(*gaps[i]) : "", r.between_ns);
            }
        }
        stream << out;
    }
};

}  // namespace

std::string csv_field(const std::string& s) {
    if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
    std::string out = "\"";
    for (char c : s) {
        if (c == '"') out += '"';
        out += c;
    }
    return out + "\"";
}

std::unique_ptr<Reporter> make_csv_reporter() { return std::make_unique<CsvReporter>(); }

}  // namespace xfer
