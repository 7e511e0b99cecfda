#pragma once
#include <memory>

#include "report/render/reporter.hpp"

namespace xfer {

// trace.json (Chrome trace event format), at most `copies_per_run` copies of each run (0: all).
std::unique_ptr<Reporter> make_trace_reporter(size_t copies_per_run);

}  // namespace xfer
