#pragma once
#include <memory>
#include <string>

#include "report/render/reporter.hpp"

namespace xfer {

// copies.csv
std::unique_ptr<Reporter> make_csv_reporter();

// RFC 4180: a field holding a separator, a quote or a line break quoted, inner quotes doubled.
std::string csv_field(const std::string& s);

}  // namespace xfer
