#pragma once
// The concrete reporters, one per file; make_reporter() (reporter.cpp) picks among them.
#include <memory>

#include "report/reporter.hpp"

namespace xfer {

std::unique_ptr<Reporter> make_table_reporter();  // terminal table, to the stream
std::unique_ptr<Reporter> make_json_reporter();   // results.json
std::unique_ptr<Reporter> make_csv_reporter();    // copies.csv
std::unique_ptr<Reporter> make_trace_reporter();  // trace.json (Chrome trace event format)

}  // namespace xfer
