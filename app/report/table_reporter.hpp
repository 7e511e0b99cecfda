#pragma once
#include <memory>

#include "report/reporter.hpp"

namespace xfer {

// The terminal table, to the stream, as detailed as `detail` says (report/reporter.hpp).
std::unique_ptr<Reporter> make_table_reporter(ReportDetail detail = ReportDetail::full);

}  // namespace xfer
