#include "memory/numa_memory.hpp"

#include <stdexcept>
#include <string>

#ifdef XFER_HAVE_NUMA
#include <numa.h>
#endif

namespace xfer::detail {
namespace {

[[noreturn]] void fail(int node, const std::string& why) {
    throw std::runtime_error("numa:" + std::to_string(node) + ": " + why);
}

#ifdef XFER_HAVE_NUMA
// "0..0", "0..1, 4..5": the nodes this process may allocate on.
std::string node_ranges() {
    std::string out;
    int max = numa_max_node();
    for (int n = 0; n <= max; ++n) {
        if (!numa_bitmask_isbitset(numa_all_nodes_ptr, unsigned(n))) continue;
        int last = n;
        while (last + 1 <= max && numa_bitmask_isbitset(numa_all_nodes_ptr, unsigned(last + 1)))
            ++last;
        if (!out.empty()) out += ", ";
        out += std::to_string(n) + ".." + std::to_string(last);
        n = last;
    }
    return out.empty() ? "none" : out;
}
#endif

}  // namespace

void check_numa_node(int node) {
#ifdef XFER_HAVE_NUMA
    if (numa_available() < 0) fail(node, "the kernel has no NUMA support (numa_available() < 0)");
    if (node < 0 || node > numa_max_node() ||
        !numa_bitmask_isbitset(numa_all_nodes_ptr, unsigned(node)))
        fail(node, "this machine has NUMA nodes " + node_ranges());
#else
    fail(node, "built without libnuma");
#endif
}

void* numa_allocate(uint64_t bytes, int node) {
    check_numa_node(node);
#ifdef XFER_HAVE_NUMA
    void* p = numa_alloc_onnode(bytes, node);
    if (!p) fail(node, "numa_alloc_onnode of " + std::to_string(bytes) + " bytes failed");
    return p;
#else
    (void)bytes;
    return nullptr;
#endif
}

void numa_release(void* data, uint64_t bytes) {
#ifdef XFER_HAVE_NUMA
    numa_free(data, bytes);
#else
    (void)data;
    (void)bytes;
#endif
}

}  // namespace xfer::detail
