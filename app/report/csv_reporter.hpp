#pragma once
#include <memory>

#include "report/reporter.hpp"

namespace xfer {

// copies.csv
std::unique_ptr<Reporter> make_csv_reporter();

}  // namespace xfer
