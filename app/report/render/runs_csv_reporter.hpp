#pragma once
#include <memory>

#include "report/render/reporter.hpp"

namespace xfer {

// runs.csv: one row per run of the plan (its trials together) and one per trial, for
// spreadsheets. Columns: docs/reading-reports.md.
std::unique_ptr<Reporter> make_runs_csv_reporter();

}  // namespace xfer
