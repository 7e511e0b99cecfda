#include "system/meminfo.hpp"

#include "system/memory_limits.hpp"

namespace xfer {

// /proc/meminfo is parsed in system/memory_limits.cpp; these are its first line.
uint64_t total_host_memory() { return read_memory_budget().total(); }
uint64_t available_host_memory() { return read_memory_budget().limits.front().left; }

}  // namespace xfer
