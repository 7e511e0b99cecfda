// The terminal report, 100 columns wide: the runs side by side (what ran, how it compares to
// the baseline), their bandwidth figures, then each run's workers in the seed's shape (one row
// per worker, per-copy GB/s mean/min/max), its thread differences, findings, notes and errors,
// and the summary across runs. Numbers come from Analysis only; nothing is computed here.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <ostream>
#include <set>

#include "report/compare.hpp"
#include "util/format.hpp"
#include "report/table_reporter.hpp"
#include "report/text_table.hpp"

namespace xfer {

namespace {

constexpr size_t kWidth = 100;
using Align = TextTable::Align;

std::string per_copy_cell(const Distribution& d) {
    if (d.n == 0) return "-";
    return fmt::format("{} ({}-{})", fmtx::gbps(d.p50), fmtx::gbps(d.p10), fmtx::gbps(d.p90));
}

// A JSON field as text, "" when absent; numbers and strings alike (host facts are optional).
std::string field(const nlohmann::json& j, const char* key) {
    if (!j.is_object()) return "";
    const auto it = j.find(key);
    if (it == j.end() || it->is_null()) return "";
    return it->is_string() ? it->get<std::string>() : it->dump();
}

std::string host_line(const nlohmann::json& host) {
    std::vector<std::string> parts;
    for (const char* key : {"hostname", "cpu_model"}) {
        if (auto v = field(host, key); !v.empty()) parts.push_back(v);
    }
    if (auto v = field(host, "logical_cpus"); !v.empty()) parts.push_back(v + " CPUs");
    if (auto v = field(host, "numa_nodes"); !v.empty()) {
        parts.push_back(v + (v == "1" ? " NUMA node" : " NUMA nodes"));
    }
    if (auto v = field(host, "transparent_hugepage"); !v.empty()) parts.push_back("THP " + v);
    if (auto v = field(host, "kernel"); !v.empty()) parts.push_back(v);
    if (parts.empty()) return "";
    return wrap(fmt::format("host: {}", fmt::join(parts, ", ")), kWidth, "", "  ");
}

std::string header(const Results& results) {
    std::string name = "(unnamed)";
    if (results.scenario.is_object()) {
        const auto s = results.scenario.find("scenario");
        if (s != results.scenario.end() && s->is_object() && s->contains("name") &&
            (*s)["name"].is_string()) {
            name = (*s)["name"].get<std::string>();
        } else if (results.scenario.contains("name") && results.scenario["name"].is_string()) {
            name = results.scenario["name"].get<std::string>();
        }
    }
    std::string out = wrap(fmt::format("xferlab {} ({}): scenario {}, {} run{}",
                                       results.tool_version, results.git_describe, name,
                                       results.runs.size(), results.runs.size() == 1 ? "" : "s"),
                           kWidth, "", "  ");
    out += host_line(results.host);
    out += wrap(
        "GB/s = 10^9 bytes/s. aggregate = bytes moved in the measurement window / window; per-copy = bytes / "
        "host-timed call; CV = stddev/mean of per-copy GB/s; Jain = fairness over workers (1 = "
        "fair); conc. = mean copies in flight, host-timed / device-timed; scaling = aggregate / "
        "1-thread aggregate.",
        kWidth, "", "");
    return out;
}

std::string runs_table(const Results& results, const Analysis& analysis) {
    TextTable t;
    t.add_column("#", Align::right);
    t.add_column("label", Align::left, true);
    t.add_column("launcher", Align::left);
    t.add_column("thr", Align::right);
    t.add_column("status", Align::left);
    t.add_column("copies", Align::right);
    t.add_column("aggregate vs baseline", Align::left, true);
    for (size_t i = 0; i < results.runs.size(); ++i) {
        const RunResult& r = results.runs[i];
        const RunAnalysis& a = analysis.runs[i];
        std::string vs = "-";
        if (a.is_baseline) vs = "baseline";
        if (a.vs_baseline) vs = a.vs_baseline->verdict;
        t.add_row({std::to_string(r.index), r.label, r.launcher, std::to_string(r.threads),
                   to_string(r.status), std::to_string(a.copies), vs});
    }
    return "\nRuns\n" + t.render(kWidth);
}

std::string bandwidth_table(const Results& results, const Analysis& analysis) {
    TextTable t;
    t.add_column("#", Align::right);
    t.add_column("aggregate", Align::right);
    t.add_column("per-copy p50 (p10-p90) GB/s", Align::left);
    t.add_column("CV", Align::right);
    t.add_column("Jain", Align::right);
    t.add_column("conc. host/dev", Align::left);
    t.add_column("scaling", Align::left, true);
    for (size_t i = 0; i < results.runs.size(); ++i) {
        const RunAnalysis& a = analysis.runs[i];
        if (a.copies == 0) {
            t.add_row({std::to_string(results.runs[i].index), "-", "-", "-", "-", "-", "-"});
            continue;
        }
        const std::string dev =
            a.device_concurrency ? fmt::format("{:.1f}", *a.device_concurrency) : "-";
        std::string scaling = "-";
        if (a.scaling) {
            scaling = fmt::format("{} vs run {}", fmtx::ratio(*a.scaling), *a.scaling_reference);
        }
        t.add_row({std::to_string(results.runs[i].index), fmtx::gbps_unit(a.aggregate_Bps),
                   per_copy_cell(a.per_copy_Bps), fmt::format("{:.2f}", a.per_copy_Bps.cv),
                   fmt::format("{:.2f}", a.fairness),
                   fmt::format("{:.1f} / {}", a.host_concurrency, dev), scaling});
    }
    return "\nBandwidth\n" + t.render(kWidth);
}

std::string workers_table(const RunAnalysis& a) {
    const bool device_timed = a.device_per_copy_Bps.has_value();
    TextTable t;
    t.add_column("worker", Align::right);
    t.add_column("tid", Align::right);
    t.add_column("device", Align::right);
    t.add_column("copies", Align::right);
    t.add_column("mean GB/s", Align::right);
    t.add_column("min GB/s", Align::right);
    t.add_column("max GB/s", Align::right);
    if (device_timed) t.add_column("dev p50 GB/s", Align::right);
    t.add_column("worker GB/s", Align::right);
    t.add_column("share", Align::right);
    for (const WorkerStats& w : a.workers) {
        const Distribution& d = w.per_copy_Bps;
        const bool any = d.n > 0;
        std::vector<std::string> row{std::to_string(w.worker),
                                     w.tid ? std::to_string(w.tid) : "-",
                                     w.device >= 0 ? std::to_string(w.device) : "host",
                                     std::to_string(w.copies),
                                     any ? fmtx::gbps(d.mean) : "-",
                                     any ? fmtx::gbps(d.min) : "-",
                                     any ? fmtx::gbps(d.max) : "-"};
        if (device_timed) {
            row.push_back(w.device_per_copy_Bps ? fmtx::gbps(w.device_per_copy_Bps->p50) : "-");
        }
        row.push_back(w.copies ? fmtx::gbps(w.Bps) : "-");
        row.push_back(fmtx::percent(w.share));
        t.add_row(std::move(row));
    }
    return t.render(kWidth);
}

// Between copies: each worker's gap from a return to its next call, and who had each device
// after whom.
std::string handoff_lines(const RunAnalysis& a) {
    std::string out;
    if (a.gap_ns) {
        out += wrap(fmt::format("between copies (host clock, a copy's return to the same "
                                "worker's next call): gap p50 {}, p90 {}; per worker:",
                                fmtx::duration(a.gap_ns->p50), fmtx::duration(a.gap_ns->p90)),
                    kWidth, "  ", "    ");
        TextTable t;
        t.add_column("worker", Align::right);
        t.add_column("gap p50", Align::right);
        t.add_column("gap p90", Align::right);
        t.add_column("run length", Align::right);
        for (const WorkerStats& w : a.workers) {
            t.add_row({std::to_string(w.worker), w.gap_ns ? fmtx::duration(w.gap_ns->p50) : "-",
                       w.gap_ns ? fmtx::duration(w.gap_ns->p90) : "-",
                       w.run_length > 0 ? fmt::format("{:.1f}", w.run_length) : "-"});
        }
        out += t.render(kWidth);
    }
    for (const HandoffStats& h : a.handoffs) {
        if (h.workers < 2) continue;  // one worker: nothing to hand off
        out += wrap(fmt::format("{}: hand-off rate {:.2f}, mean run length {:.1f} ({} clock, {} "
                                "copies + {} warm-up)",
                                h.device >= 0 ? fmt::format("device {}", h.device) : "host",
                                h.handoff_rate, h.mean_run_length, h.clock, h.copies,
                                h.warmup_copies),
                    kWidth, "  ", "    ");
    }
    return out;
}

// An error under its run. A Python traceback spans lines whose blanks carry meaning (the
// frames' indentation, the caret under the failing expression): a line that fits the width is
// printed as it is after the prefix; a longer one is wrapped, indented as it was.
std::string error_lines(const std::string& e) {
    std::string out;
    size_t start = 0;
    bool first = true;
    while (start <= e.size()) {
        size_t end = e.find('\n', start);
        if (end == std::string::npos) end = e.size();
        const std::string line = e.substr(start, end - start);
        const size_t text = std::min(line.find_first_not_of(' '), line.size());
        if (text < line.size() || first) {
            const std::string prefix = first ? "  error: " : "    ";
            if (prefix.size() + line.size() <= kWidth) {
                out += prefix + line + "\n";
            } else {
                const std::string indent = prefix + line.substr(0, text);
                out += wrap(line.substr(text), kWidth, indent, indent + "  ");
            }
        }
        first = false;
        start = end + 1;
    }
    return out;
}

// Notes that every run has (e.g. the backend fallback), printed once under the header.
std::set<std::string> notes_of_every_run(const Results& results) {
    if (results.runs.size() < 2) return {};
    std::set<std::string> common(results.runs[0].notes.begin(), results.runs[0].notes.end());
    for (const RunResult& r : results.runs) {
        const std::set<std::string> mine(r.notes.begin(), r.notes.end());
        std::erase_if(common, [&](const std::string& n) { return !mine.count(n); });
    }
    return common;
}

std::string run_details(const RunResult& r, const RunAnalysis& a,
                        const std::set<std::string>& common_notes) {
    std::string out =
        "\n" + wrap(fmt::format("Run {}: {} ({}, {} backend, {} thread{}, {})", r.index, r.label,
                                r.launcher, r.backend.empty() ? "?" : r.backend, r.threads,
                                r.threads == 1 ? "" : "s", to_string(r.status)),
                    kWidth, "", "  ");
    if (r.payload) {
        out += wrap(fmt::format("payload {}: {} (found in {}), sha256 {}", r.payload->name,
                                r.payload->path, r.payload->folder, r.payload->sha256),
                    kWidth, "  ", "    ");
    }
    if (a.copies > 0) {
        out += wrap(fmt::format("{} copies x {} (+{} warm-up) in {}; copy time p50 {}; host "
                                "conc. {:.1f}, peak {}",
                                a.copies, fmtx::size(r.bytes_per_copy), a.warmup_copies,
                                fmtx::duration(a.window_s * 1e9), fmtx::duration(a.per_copy_ns.p50),
                                a.host_concurrency, a.host_peak),
                    kWidth, "  ", "    ");
        out +=
            "  per-copy GB/s per worker (host-timed; worker GB/s = its bytes / its own "
            "first call..last return)\n";
        out += workers_table(a);
        out += handoff_lines(a);
    }
    if (a.device_per_copy_Bps) {
        std::string line = fmt::format("device-timed per-copy p50 (p10-p90): {} GB/s",
                                       per_copy_cell(*a.device_per_copy_Bps));
        if (a.pre_device_ns) {
            line += fmt::format("; call start to device start p50 {} (p90 {})",
                                fmtx::duration(a.pre_device_ns->p50),
                                fmtx::duration(a.pre_device_ns->p90));
        }
        out += wrap(line, kWidth, "  ", "    ");
        for (const DeviceStats& d : a.devices) {
            out += wrap(fmt::format("device {}: {} workers, {} copies, device-side conc. {:.2f} "
                                    "(peak {})",
                                    d.device, d.workers, d.copies, d.concurrency, d.peak),
                        kWidth, "  ", "    ");
        }
    }
    if (a.vs_baseline && a.vs_baseline->judged) {
        const Comparison& c = *a.vs_baseline;
        out += wrap(fmt::format("vs run {}: aggregate {}; per-copy p50 {}", c.baseline_run,
                                ratio_verdict(c.aggregate_ratio, c.aggregate_noise, c.judged),
                                ratio_verdict(c.p50_ratio, c.p50_noise, c.judged)),
                    kWidth, "  ", "    ");
    }
    if (!a.thread_differences.empty() && a.vs_baseline) {
        out +=
            fmt::format("  thread attributes, run {} vs this run:\n", a.vs_baseline->baseline_run);
        for (const auto& d : a.thread_differences) out += wrap(d, kWidth, "    ", "      ");
    }
    for (const auto& e : a.explanations) out += wrap(e, kWidth, "  why: ", "    ");
    for (const auto& n : r.notes) {
        if (!common_notes.count(n)) out += wrap(n, kWidth, "  note: ", "    ");
    }
    for (const auto& e : r.errors) out += error_lines(e);
    return out;
}

class TableReporter : public Reporter {
  public:
    std::string name() const override { return "table"; }

    void write(const Results& results, const Analysis& analysis, std::ostream& out) override {
        const std::set<std::string> common_notes = notes_of_every_run(results);
        std::string text = header(results);
        for (const auto& n : common_notes) text += wrap(n, kWidth, "note (every run): ", "  ");
        text += runs_table(results, analysis);
        text += bandwidth_table(results, analysis);
        for (size_t i = 0; i < results.runs.size(); ++i) {
            text += run_details(results.runs[i], analysis.runs[i], common_notes);
        }
        if (!analysis.summary.empty()) {
            text += "\nSummary\n";
            for (const auto& s : analysis.summary) text += wrap(s, kWidth, "  - ", "    ");
        }
        out << text;
    }
};

}  // namespace

std::unique_ptr<Reporter> make_table_reporter() { return std::make_unique<TableReporter>(); }

}  // namespace xfer
