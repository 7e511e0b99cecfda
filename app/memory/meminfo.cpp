// How much memory the system can still give, for the preflight that refuses a plan before
// anything is allocated.
#include "memory/host_buffer.hpp"
#include "memory/memory_limits.hpp"

namespace xfer {

// MemAvailable alone; the preflight uses read_memory_budget(), which adds the process's limits.
uint64_t available_host_memory() { return read_memory_budget().limits.front().left; }

}  // namespace xfer
