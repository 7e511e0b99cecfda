// runs.csv: the summary figures of the table, one row per run ("run": all its trials) followed
// by its trials ("trial"), so that a spreadsheet filters on `kind`. Empty cells: not defined for
// the row (a baseline has no ratio, a trial row no interval across trials).
#include "report/render/formats.hpp"

#include <fmt/format.h>

#include <iterator>
#include <optional>
#include <string>

#include "report/render/csv_reporter.hpp"
#include "report/analysis/trial_analysis.hpp"

namespace xfer {

namespace {

constexpr const char* kRunsHeader =
    "kind,label,trial,trials,run,launcher,threads,status,copies,aggregate_GBps,"
    "aggregate_ci_low_GBps,aggregate_ci_high_GBps,between_trial_cv,per_copy_p50_GBps,"
    "per_copy_cv,baseline,ratio,ratio_ci_low,ratio_ci_high,p,finding,verdict\n";

std::string num(double v) { return fmt::format("{:.6g}", v); }
std::string num(const std::optional<double>& v) { return v ? num(*v) : ""; }
std::string gbps(double Bps) { return num(Bps / 1e9); }
std::string gbps(const std::optional<double>& Bps) { return Bps ? gbps(*Bps) : ""; }

void group_row(const Results& results, const Analysis& analysis, const TrialGroup& g,
               std::string& out) {
    const RunResult& first = results.runs[size_t(g.runs.front())];
    std::string baseline, ratio, lo, hi, p, finding, verdict;
    if (g.is_baseline) verdict = "baseline";
    if (const auto& c = g.vs_baseline) {
        baseline = analysis.groups[size_t(c->baseline_group)].label;
        ratio = num(c->ratio);
        lo = num(c->ci_low);
        hi = num(c->ci_high);
        if (c->trials >= 2 && c->baseline_trials >= 2) p = num(c->p);
        finding = finding_name(c->finding);
        verdict = c->verdict;
    }
    const bool measured = !g.aggregate_Bps.empty();
    const RunSettings& ran = first.settings;
    fmt::format_to(
        std::back_inserter(out), "run,{},,{},,{},{},,,{},{},{},{},{},,{},{},{},{},{},{},{}\n",
        csv_field(g.label), g.aggregate_Bps.size(), csv_field(ran.launcher), ran.threads.count,
        measured ? gbps(g.median_Bps) : "", gbps(g.ci_low), gbps(g.ci_high),
        g.aggregate_Bps.size() > 1 ? num(g.cv) : "", measured ? gbps(g.pooled_p50_Bps) : "",
        csv_field(baseline), ratio, lo, hi, p, finding, csv_field(verdict));
}

void trial_row(const Results& results, const Analysis& analysis, size_t i, std::string& out) {
    const RunResult& r = results.runs[i];
    const RunAnalysis& a = analysis.runs[i];
    std::string baseline, ratio, verdict = a.is_baseline ? "baseline" : "";
    if (a.vs_baseline) {
        // A run number (the baseline's position.index), not its place in results.runs: a
        // results file may hold some runs of a plan only.
        baseline = std::to_string(a.vs_baseline->baseline_run);
        ratio = num(a.vs_baseline->aggregate_ratio);
        verdict = a.vs_baseline->verdict;
    }
    const bool measured = a.copies > 0;
    fmt::format_to(
        std::back_inserter(out), "trial,{},{},,{},{},{},{},{},{},,,,{},{},{},{},,,,,{}\n",
        csv_field(r.position.label), r.position.trial, r.position.index,
        csv_field(r.settings.launcher), r.settings.threads.count, to_string(r.status), a.copies,
        measured ? gbps(a.aggregate_Bps) : "", measured ? gbps(a.per_copy_Bps.p50) : "",
        measured ? num(a.per_copy_Bps.cv) : "", baseline, ratio, csv_field(verdict));
}

class RunsCsvReporter : public Reporter {
  public:
    std::string name() const override { return "runs"; }

    void write(const Results& results, const Analysis& analysis, std::ostream& stream) override {
        std::string out = kRunsHeader;
        for (const TrialGroup& g : analysis.groups) {
            group_row(results, analysis, g, out);
            for (int i : g.runs) trial_row(results, analysis, size_t(i), out);
        }
        stream << out;
    }
};

}  // namespace

std::unique_ptr<Reporter> make_runs_csv_reporter() { return std::make_unique<RunsCsvReporter>(); }

}  // namespace xfer
