#pragma once
#include <memory>

#include "report/render/reporter.hpp"

namespace xfer {

// The terminal table, to the stream, as detailed as `detail` says (report/render/reporter.hpp).
std::unique_ptr<Reporter> make_table_reporter(ReportDetail detail = ReportDetail::full);

}  // namespace xfer
