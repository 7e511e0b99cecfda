#pragma once
// numa:<node> host memory through libnuma, behind one seam so that a build without libnuma
// still compiles and says why the kind is unavailable. Internal to memory/.
#include <cstdint>

namespace xfer::detail {

// Throws std::runtime_error naming why `node` cannot hold memory here ("numa:3: this machine
// has NUMA nodes 0..0", "numa:0: built without libnuma").
void check_numa_node(int node);
// Memory bound to `node` (not yet touched: the binding decides where its pages will live).
void* numa_allocate(uint64_t bytes, int node);
void numa_release(void* data, uint64_t bytes);

}  // namespace xfer::detail
