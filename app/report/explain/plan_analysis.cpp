#include "report/explain/plan_analysis.hpp"

#include "report/explain/analyze.hpp"

namespace xfer {

void PlanAnalysis::add_run(RunAnalysis run) {
    runs_.push_back(std::move(run));
    whole_.reset();
}

const Analysis& PlanAnalysis::of(const Results& results) {
    if (!whole_) whole_ = analyze(results, runs_);
    return *whole_;
}

}  // namespace xfer
