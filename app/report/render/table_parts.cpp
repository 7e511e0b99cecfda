#include "report/render/table_parts.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <optional>
#include <vector>

#include "report/render/table_run_section.hpp"
#include "util/text_table.hpp"
#include "util/format.hpp"

namespace xfer {

namespace {

constexpr size_t kWidth = kTableWidth;
using Align = TextTable::Align;

// A fact as text, "" where not recorded.
std::string field(const std::optional<std::string>& fact) { return fact.value_or(""); }
std::string field(const std::optional<int64_t>& fact) { return fact ? std::to_string(*fact) : ""; }

// The bandwidth tables' columns after the per-copy one, and their cells: per-copy CV, Jain, and
// host / device concurrency.
void add_spread_columns(TextTable& t) {
    t.add_column("CV", Align::right);
    t.add_column("Jain", Align::right);
    t.add_column("conc. host/dev", Align::left);
}

void add_spread_cells(std::vector<std::string>& row, double cv, double jain, double host,
                      const std::optional<double>& device) {
    row.push_back(fmt::format("{:.2f}", cv));
    row.push_back(fmt::format("{:.2f}", jain));
    row.push_back(fmt::format("{:.1f} / {}", host, device ? fmt::format("{:.1f}", *device) : "-"));
}

}  // namespace

bool has_trials(const Results& results) {
    return std::any_of(results.runs.begin(), results.runs.end(),
                       [](const RunResult& r) { return r.position.trial > 1; });
}

std::string host_line(const std::optional<HostFacts>& facts) {
    const HostFacts host = facts.value_or(HostFacts{});
    std::vector<std::string> parts;
    for (const auto& fact : {host.hostname, host.cpu_model}) {
        if (auto v = field(fact); !v.empty()) parts.push_back(v);
    }
    if (auto v = field(host.logical_cpus); !v.empty()) parts.push_back(v + " CPUs");
    if (auto v = field(host.numa_nodes); !v.empty()) {
        parts.push_back(v + (v == "1" ? " NUMA node" : " NUMA nodes"));
    }
    if (auto v = field(host.transparent_hugepage); !v.empty()) parts.push_back("THP " + v);
    if (auto v = field(host.kernel); !v.empty()) parts.push_back(v);
    if (parts.empty()) return "";
    return wrap(fmt::format("host: {}", fmt::join(parts, ", ")), kWidth, "", "  ");
}

std::string report_title(const Results& results, const Analysis& analysis) {
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
    std::string runs =
        fmt::format("{} run{}", results.runs.size(), results.runs.size() == 1 ? "" : "s");
    if (has_trials(results)) {
        size_t most = 0, least = SIZE_MAX;
        for (const TrialGroup& g : analysis.groups) {
            most = std::max(most, g.runs.size());
            least = std::min(least, g.runs.size());
        }
        runs += fmt::format(" ({} x {}{} trials)", analysis.groups.size(),
                            least == most ? "" : "up to ", most);
    }
    return wrap(fmt::format("xferlab {} ({}): scenario {}, {}", results.tool_version,
                            results.git_describe, name, runs),
                kWidth, "", "  ");
}

std::string report_legend() {
    return wrap(
        "GB/s = 10^9 bytes/s. aggregate = bytes moved in the measurement window / window; "
        "per-copy = bytes / host-timed call; CV = stddev/mean of per-copy GB/s; Jain = fairness "
        "over workers (1 = fair); conc. = mean copies in flight, host-timed / device-timed; "
        "scaling = aggregate / 1-thread aggregate.",
        kWidth, "", "");
}

std::string summary_block(const Analysis& analysis) {
    if (analysis.summary.empty()) return "";
    std::string out = "\nSummary\n";
    for (const Finding& f : analysis.summary) out += wrap(f.text(), kWidth, "  - ", "    ");
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
    const bool trials = has_trials(results);
    for (size_t i = 0; i < results.runs.size(); ++i) {
        const RunResult& r = results.runs[i];
        const RunAnalysis& a = analysis.runs[i];
        const std::string label =
            trials ? fmt::format("{} (trial {})", r.position.label, r.position.trial)
                   : r.position.label;
        std::string vs = "-";
        if (a.is_baseline) vs = "baseline";
        if (a.vs_baseline) vs = a.vs_baseline->verdict;
        t.add_row({std::to_string(r.position.index), label, r.settings.launcher,
                   std::to_string(r.settings.threads.count), to_string(r.status),
                   std::to_string(a.copies), vs});
    }
    return "\nRuns\n" + t.render(kWidth);
}

// The run numbers of a group's trials: "runs 2, 6, 10".
std::string run_numbers_of(const Analysis& analysis, const TrialGroup& g) {
    std::vector<int> runs;
    for (int i : g.runs) runs.push_back(analysis.runs[size_t(i)].run);
    return run_numbers(runs);
}

std::string trials_table(const Analysis& analysis) {
    TextTable t;
    t.add_column("label (its runs)", Align::left, true);
    t.add_column("trials", Align::right);
    t.add_column("median agg.", Align::right);
    t.add_column("95% CI (mean)", Align::left);
    t.add_column("CV", Align::right);
    t.add_column("vs baseline of its sweep point", Align::left, true);
    for (const TrialGroup& g : analysis.groups) {
        // The runs' numbers, as Why and Summary name them.
        const std::string label = fmt::format("{} ({})", g.label, run_numbers_of(analysis, g));
        if (g.aggregate_Bps.empty()) {
            t.add_row({label, "0", "-", "-", "-", "-"});
            continue;
        }
        const std::string ci =
            g.ci_low ? fmtx::interval(fmtx::gbps(*g.ci_low), fmtx::gbps(*g.ci_high)) : "-";
        const std::string vs = g.is_baseline   ? "baseline"
                               : g.vs_baseline ? g.vs_baseline->verdict
                                               : "-";
        t.add_row({label, std::to_string(g.aggregate_Bps.size()), fmtx::gbps_unit(g.median_Bps), ci,
                   g.aggregate_Bps.size() > 1 ? fmt::format("{:.3f}", g.cv) : "-", vs});
    }
    return "\nVerdicts across trials (Mann-Whitney U on trial aggregates, 95%)\n" +
           t.render(kWidth);
}

std::string bandwidth_table(const Results& results, const Analysis& analysis) {
    TextTable t;
    t.add_column("#", Align::right);
    t.add_column("aggregate", Align::right);
    t.add_column("per-copy p50 (p10-p90) GB/s", Align::left);
    add_spread_columns(t);
    t.add_column("scaling", Align::left, true);
    for (size_t i = 0; i < results.runs.size(); ++i) {
        const RunAnalysis& a = analysis.runs[i];
        if (a.copies == 0) {
            t.add_row(
                {std::to_string(results.runs[i].position.index), "-", "-", "-", "-", "-", "-"});
            continue;
        }
        std::vector<std::string> row{std::to_string(results.runs[i].position.index),
                                     fmtx::gbps_unit(a.aggregate_Bps),
                                     per_copy_cell(a.per_copy_Bps)};
        add_spread_cells(row, a.per_copy_Bps.cv, a.fairness_jain, a.host_concurrency,
                         a.device_concurrency);
        row.push_back(
            a.scaling ? fmt::format("{} vs run {}", fmtx::ratio(*a.scaling), *a.scaling_reference)
                      : "-");
        t.add_row(std::move(row));
    }
    return "\nBandwidth\n" + t.render(kWidth);
}

std::string plan_bandwidth_table(const Analysis& analysis) {
    TextTable t;
    t.add_column("label", Align::left, true);
    t.add_column("aggregate", Align::right);
    t.add_column("per-copy p50", Align::right);
    add_spread_columns(t);
    for (const TrialGroup& g : analysis.groups) {
        if (g.aggregate_Bps.empty()) {
            t.add_row({g.label, "-", "-", "-", "-", "-"});
            continue;
        }
        std::vector<std::string> row{g.label, fmtx::gbps_unit(g.median_Bps),
                                     fmtx::gbps(g.pooled_p50_Bps) + " GB/s"};
        add_spread_cells(row, g.per_copy_cv, g.fairness_jain, g.host_concurrency,
                         g.device_concurrency);
        t.add_row(std::move(row));
    }
    return "\nBandwidth (per run of the plan: medians over its trials; per-copy p50 of every "
           "trial's copies)\n" +
           t.render(kWidth);
}

}  // namespace xfer
