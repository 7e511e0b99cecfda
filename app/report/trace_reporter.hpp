#pragma once
#include <memory>

#include "report/reporter.hpp"

namespace xfer {

// trace.json (Chrome trace event format)
std::unique_ptr<Reporter> make_trace_reporter();

}  // namespace xfer
