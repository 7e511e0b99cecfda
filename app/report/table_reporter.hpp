#pragma once
#include <memory>

#include "report/reporter.hpp"

namespace xfer {

// terminal table, to the stream
std::unique_ptr<Reporter> make_table_reporter();

}  // namespace xfer
