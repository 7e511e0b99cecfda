#pragma once
#include <string>

namespace xfer {

// RFC 4180: a field holding a separator, a quote or a line break quoted, inner quotes doubled.
std::string csv_field(const std::string& s);

}  // namespace xfer
