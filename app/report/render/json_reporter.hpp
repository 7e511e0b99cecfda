#pragma once
#include <memory>

#include "report/render/reporter.hpp"

namespace xfer {

// results.json
std::unique_ptr<Reporter> make_json_reporter();

}  // namespace xfer
