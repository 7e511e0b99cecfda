#include "report/render/table_parts.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <optional>
#include <vector>

#include "report/analysis/trial_analysis.hpp"
#include "report/explain/explanation_rules.hpp"
#include "report/analysis/trial_stats.hpp"
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

std::string short_legend() {
    return wrap(
        "GB/s = 10^9 bytes/s; aggregate = bytes moved in the measurement window / window; "
        "per-copy = bytes / call. Every figure: docs/reading-reports.md, the legend: --full.",
        kWidth, "", "");
}

std::string summary_block(const Analysis& analysis, bool full) {
    std::string out;
    for (const Finding& f : analysis.summary) {
        // A summary finding the default report shows another way (its Hand-off table).
        const auto rule = std::find_if(
            explanation_rules().begin(), explanation_rules().end(),
            [&](const ExplanationRule& r) { return f.rule == r.text.id; });
        if (!full && rule != explanation_rules().end() && rule->full_only) continue;
        out += wrap(f.text(), kWidth, "  - ", "    ");
    }
    return out.empty() ? "" : "\nSummary\n" + out;
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

namespace {

// The verdict against the baseline in two cells: the ratio and the finding, then what it rests
// on ("[0.81x, 1.32x], p=0.841"; the trial counts where they are not every label's).
std::pair<std::string, std::string> verdict_cells(const TrialComparison& c, bool counts) {
    using Finding = TrialComparison::Finding;
    const std::string ratio = fmtx::ratio(c.ratio);
    const std::string vs = counts ? fmt::format(", {} vs {}", c.trials, c.baseline_trials) : "";
    switch (c.finding) {
        case Finding::not_tested:
            return {ratio + ", not tested",
                    fmt::format("{} trial{}", std::min(c.trials, c.baseline_trials),
                                std::min(c.trials, c.baseline_trials) == 1 ? "" : "s")};
        case Finding::not_testable:
            return {ratio + ", not testable",
                    fmt::format("p >= {:.2g}{}",
                                stats::smallest_mann_whitney_p(c.trials, c.baseline_trials), vs)};
        default: break;
    }
    const std::string ci =
        c.ci_low ? fmtx::interval(fmtx::ratio(*c.ci_low), fmtx::ratio(*c.ci_high)) + ", " : "";
    const std::string word = c.finding == Finding::negligible
                                 ? fmt::format("negligible (< {:.0f} %)", kNegligibleRatio * 100)
                                 : finding_name(c.finding);
    return {ratio + ", " + word, fmt::format("{}p={:.3g}{}", ci, c.p, vs)};
}

// The concise table: one line per run of the plan.
std::string concise_trials_table(const Analysis& analysis) {
    size_t least = SIZE_MAX, most = 0;
    for (const TrialGroup& g : analysis.groups) {
        least = std::min(least, g.aggregate_Bps.size());
        most = std::max(most, g.aggregate_Bps.size());
    }
    const bool same = least == most;
    TextTable t;
    t.add_column("label", Align::left, true);
    if (!same) t.add_column("trials", Align::right);
    t.add_column("median agg.", Align::right);
    t.add_column("trial CV", Align::right);
    t.add_column("vs baseline", Align::left);
    t.add_column("95% CI, p", Align::left, true);
    for (const TrialGroup& g : analysis.groups) {
        std::vector<std::string> row{g.label};
        if (!same) row.push_back(std::to_string(g.aggregate_Bps.size()));
        if (g.aggregate_Bps.empty()) {
            row.insert(row.end(), {"-", "-", "-", "-"});
        } else {
            row.push_back(fmtx::gbps_unit(g.median_Bps));
            row.push_back(g.aggregate_Bps.size() > 1 ? fmt::format("{:.3f}", g.cv) : "-");
            if (g.is_baseline) {
                row.insert(row.end(), {"baseline", ""});
            } else if (g.vs_baseline) {
                auto [vs, rests_on] = verdict_cells(*g.vs_baseline, !same);
                row.push_back(std::move(vs));
                row.push_back(std::move(rests_on));
            } else {
                row.insert(row.end(), {"-", "-"});
            }
        }
        t.add_row(std::move(row));
    }
    const std::string each = same ? fmt::format("{} trials each; ", most) : "";
    return "\nVerdicts across trials (" + each +
           "two-sided Mann-Whitney U on the trials' aggregates, 95%)\n" + t.render(kWidth);
}

}  // namespace

std::string trials_table(const Analysis& analysis, bool with_runs) {
    if (!with_runs) return concise_trials_table(analysis);
    TextTable t;
    t.add_column(with_runs ? "label (its runs)" : "label", Align::left, true);
    t.add_column("trials", Align::right);
    t.add_column("median agg.", Align::right);
    t.add_column("95% CI (mean)", Align::left);
    t.add_column("CV", Align::right);
    t.add_column("vs baseline of its sweep point", Align::left, true);
    for (const TrialGroup& g : analysis.groups) {
        // The runs' numbers, as the full report's sections name them.
        const std::string label =
            with_runs ? fmt::format("{} ({})", g.label, run_numbers_of(analysis, g)) : g.label;
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
