#pragma once
// The report's formats as writers of a results folder (results/results_writer.hpp): each
// format's file written whole when the plan ends (results/file_at_finish.hpp), from the plan's
// analysis, which is computed once for all of them; and results.sqlite's analysis from the same.
#include <memory>
#include <string>
#include <vector>

#include "report/explain/plan_analysis.hpp"
#include "report/render/formats.hpp"
#include "results/record_store_writer.hpp"
#include "results/results_writer.hpp"

namespace xfer {

// One writer per format of `names` that has a file (the terminal table has none), in that
// order; std::invalid_argument for a name formats() does not know. `analysis` must outlive
// the writers.
std::vector<std::unique_ptr<ResultsWriter>> format_writers(const std::vector<std::string>& names,
                                                           const FolderOfFormats& folder,
                                                           const ReportLimits& limits,
                                                           PlanAnalysis& analysis);

// results.sqlite's analysis (each run's, the summary) from `analysis`, which must outlive it.
RecordStoreWriter::AnalysisOf stored_analysis(PlanAnalysis& analysis);

}  // namespace xfer
