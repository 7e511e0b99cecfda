#pragma once
// Source and destination memory kinds of a run's copies, nvprof's SrcMemType/DstMemType, from
// the run's direction, host memory kind and backend (the host backend's "device" is host memory).
#include <string>
#include <utility>

#include "results/run_result.hpp"

namespace xfer {

// {src, dst}, e.g. h2d pageable on cuda -> {"pageable", "device"}; on the host backend
// -> {"pageable", "host"}.
std::pair<std::string, std::string> memory_kinds(const RunResult& run);

}  // namespace xfer
