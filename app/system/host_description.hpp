#pragma once
#include <nlohmann/json.hpp>

namespace xfer {

// The machine a result came from: CPU model, cores, NUMA nodes, transparent huge pages,
// kernel, hostname, memory. Written into results.json.
nlohmann::json describe_host();

}  // namespace xfer
