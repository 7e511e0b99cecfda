#pragma once
// The parts of the terminal report that every level of detail prints (report/render/reporter.hpp):
// the title, the host, the legend, the runs and trials tables, the bandwidth and the summary.
// Numbers come from Analysis only.
#include <string>

#include "report/analysis/analysis.hpp"
#include "results/run_result.hpp"

namespace xfer {

std::string report_title(const Results& results, const Analysis& analysis);
std::string host_line(const std::optional<HostFacts>& host);
std::string report_legend();
// The default report's: the two figures everything else is read against, and where the rest is.
std::string short_legend();
// The summary's findings; `full`: also those the default report shows another way.
std::string summary_block(const Analysis& analysis, bool full);
// One row per run (each trial its own): status, copies and the trial's verdict.
std::string runs_table(const Results& results, const Analysis& analysis);
// One row per run of the plan with its trials together: the verdict a reader should quote.
std::string trials_table(const Analysis& analysis, bool with_runs);
// One row per run (each trial its own): aggregate, per-copy, CV, Jain, concurrency, scaling.
std::string bandwidth_table(const Results& results, const Analysis& analysis);
// The same figures per run of the plan, medians over its trials.
std::string plan_bandwidth_table(const Analysis& analysis);
// Whether any run of the plan has more than one trial.
bool has_trials(const Results& results);

}  // namespace xfer
