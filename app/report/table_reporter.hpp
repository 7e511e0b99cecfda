#pragma once
#include <memory>

#include "report/reporter.hpp"

namespace xfer {

// terminal table, to the stream; brief: the runs, bandwidth and summary only
std::unique_ptr<Reporter> make_table_reporter(ReportDetail detail = ReportDetail::full);

}  // namespace xfer
