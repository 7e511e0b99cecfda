#pragma once
// A plan's analysis as the plan goes: each run's own figures kept as the run ends (the progress
// line reads them at once), the whole (the runs against each other, the findings) computed
// once, when the reports ask for it at the plan's end, and shared by every report and the
// terminal.
#include <optional>
#include <vector>

#include "report/analysis/analysis.hpp"
#include "results/run_result.hpp"

namespace xfer {

class PlanAnalysis {
  public:
    // The next run's analyze_run, in the order the runs are added to the results.
    void add_run(RunAnalysis run);
    size_t runs() const { return runs_.size(); }
    // The analysis of `results`, whose runs are the ones added: computed at the first call and
    // again only when runs were added since.
    const Analysis& of(const Results& results);

  private:
    std::vector<RunAnalysis> runs_;
    std::optional<Analysis> whole_;
};

}  // namespace xfer
