// The terminal report, 100 columns wide: the runs side by side (what ran, how it compares to
// the baseline), their bandwidth figures, what several runs say alike (once, naming the runs),
// then each run's own section (report/table_run_section.cpp), and the summary across runs.
// Brief: the runs, the bandwidth and the summary only. Numbers come from Analysis only.
#include "report/table_reporter.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <ostream>
#include <set>

#include "report/shared_items.hpp"
#include "report/table_run_section.hpp"
#include "report/text_table.hpp"
#include "util/format.hpp"

namespace xfer {

namespace {

constexpr size_t kWidth = kTableWidth;
using Align = TextTable::Align;

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

std::string title(const Results& results) {
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
    return wrap(fmt::format("xferlab {} ({}): scenario {}, {} run{}", results.tool_version,
                            results.git_describe, name, results.runs.size(),
                            results.runs.size() == 1 ? "" : "s"),
                kWidth, "", "  ");
}

std::string legend() {
    return wrap(
        "GB/s = 10^9 bytes/s. aggregate = bytes moved in the measurement window / window; "
        "per-copy = bytes / host-timed call; CV = stddev/mean of per-copy GB/s; Jain = fairness "
        "over workers (1 = fair); conc. = mean copies in flight, host-timed / device-timed; "
        "scaling = aggregate / 1-thread aggregate.",
        kWidth, "", "");
}

std::string summary(const Analysis& analysis) {
    if (analysis.summary.empty()) return "";
    std::string out = "\nSummary\n";
    for (const auto& s : analysis.summary) out += wrap(s, kWidth, "  - ", "    ");
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
    t.add_column("aggregate vs baseline (this trial)", Align::left, true);
    const bool trials = std::any_of(results.runs.begin(), results.runs.end(),
                                    [](const RunResult& r) { return r.trial > 1; });
    for (size_t i = 0; i < results.runs.size(); ++i) {
        const RunResult& r = results.runs[i];
        const RunAnalysis& a = analysis.runs[i];
        const std::string label = trials ? fmt::format("{} (trial {})", r.label, r.trial) : r.label;
        std::string vs = "-";
        if (a.is_baseline) vs = "baseline";
        if (a.vs_baseline) vs = a.vs_baseline->verdict;
        t.add_row({std::to_string(r.index), label, r.launcher, std::to_string(r.threads),
                   to_string(r.status), std::to_string(a.copies), vs});
    }
    return "\nRuns\n" + t.render(kWidth);
}

// One row per run of the plan with its trials together: the verdict a reader should quote.
std::string trials_table(const Analysis& analysis) {
    TextTable t;
    t.add_column("label", Align::left, true);
    t.add_column("trials", Align::right);
    t.add_column("median agg.", Align::right);
    t.add_column("95% CI (mean)", Align::left);
    t.add_column("CV", Align::right);
    t.add_column("vs baseline of its sweep point", Align::left, true);
    for (const TrialGroup& g : analysis.groups) {
        if (g.aggregate_Bps.empty()) {
            t.add_row({g.label, "0", "-", "-", "-", "-"});
            continue;
        }
        const std::string ci =
            g.ci_low ? fmt::format("{}-{}", fmtx::gbps(*g.ci_low), fmtx::gbps(*g.ci_high)) : "-";
        const std::string vs = g.is_baseline   ? "baseline"
                               : g.vs_baseline ? g.vs_baseline->verdict
                                               : "-";
        t.add_row({g.label, std::to_string(g.aggregate_Bps.size()), fmtx::gbps_unit(g.median_Bps),
                   ci, g.aggregate_Bps.size() > 1 ? fmt::format("{:.3f}", g.cv) : "-", vs});
    }
    return "\nVerdicts across trials (Mann-Whitney U on trial aggregates, 95%)\n" +
           t.render(kWidth);
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

// Said once for every run's section, so that the sections hold only what differs.
std::string per_run_legend() {
    return "\nPer run\n" +
           wrap(
               "worker rows: per-copy GB/s (host-timed) mean, min and max; worker GB/s = the "
               "worker's bytes / its own first call..last return. gap = host clock from a "
               "copy's return to the same worker's next call; run length = a worker's copies "
               "in a row on its device.",
               kWidth, "  ", "  ");
}

size_t line_count(const std::string& text) {
    return size_t(std::count(text.begin(), text.end(), '\n'));
}

// What several runs say alike, printed once: the notes of every run under the header, and
// each group of items that takes fewer lines printed once with its runs named than under each
// of its runs (a one-line finding that two runs share stays under each).
struct PrintedOnce {
    std::vector<std::string> every_run_notes;
    std::vector<SharedItems::Group> groups;
    std::set<RunItem> items;  // all of the above: the runs' sections leave them out
};

PrintedOnce printed_once(const Results& results, const Analysis& analysis) {
    SharedItems shared = shared_items(results, analysis);
    PrintedOnce once;
    for (const auto& n : shared.every_run_notes) once.items.insert({RunItem::Kind::note, n});
    once.every_run_notes = std::move(shared.every_run_notes);
    for (auto& g : shared.groups) {
        const size_t apart = g.runs.size() * line_count(items_text(g.items, "  ", 0, "this run"));
        const size_t together = 1 + line_count(items_text(g.items, "    ", 0, "these runs"));
        if (together >= apart) continue;
        once.items.insert(g.items.begin(), g.items.end());
        once.groups.push_back(std::move(g));
    }
    return once;
}

// The groups above, each under the runs it applies to.
std::string shared_block(const PrintedOnce& once, const Results& results,
                         const Analysis& analysis) {
    if (once.groups.empty()) return "";
    const int baseline =
        analysis.baseline_run ? results.runs[size_t(*analysis.baseline_run)].index : 0;
    std::string out = "\nSaid of several runs (once here, not under each run)\n";
    for (const auto& g : once.groups) {
        const bool every = g.runs.size() == results.runs.size();
        // Many runs (a sweep with trials) make a long list: wrapped like any other line.
        out += every ? "  every run:\n"
                     : wrap(fmt::format("runs {}:", fmt::join(g.runs, ", ")), kWidth, "  ", "    ");
        out += items_text(g.items, "    ", baseline, every ? "every run" : "these runs");
    }
    return out;
}

class TableReporter : public Reporter {
  public:
    explicit TableReporter(ReportDetail detail) : detail_(detail) {}
    std::string name() const override { return "table"; }

    void write(const Results& results, const Analysis& analysis, std::ostream& out) override {
        if (detail_ == ReportDetail::brief) {
            out << title(results) + runs_table(results, analysis) + trials_table(analysis) +
                       bandwidth_table(results, analysis) + summary(analysis);
            return;
        }
        const PrintedOnce once = printed_once(results, analysis);
        std::string text = title(results) + host_line(results.host) + legend();
        for (const auto& n : once.every_run_notes)
            text += wrap(n, kWidth, "note (every run): ", "  ");
        text += runs_table(results, analysis);
        text += trials_table(analysis);
        text += bandwidth_table(results, analysis);
        text += shared_block(once, results, analysis);
        if (!results.runs.empty()) text += per_run_legend();
        for (size_t i = 0; i < results.runs.size(); ++i) {
            text += run_section(results.runs[i], analysis.runs[i], once.items);
        }
        out << text + summary(analysis);
    }

  private:
    ReportDetail detail_;
};

}  // namespace

std::unique_ptr<Reporter> make_table_reporter(ReportDetail detail) {
    return std::make_unique<TableReporter>(detail);
}

}  // namespace xfer
