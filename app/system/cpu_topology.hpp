#pragma once
// Where each CPU the process may use sits (NUMA node, package, core), and the orders the
// affinity modes hand CPUs out in. Split from thread_control so the ordering is testable on
// made-up topologies.
#include <vector>

namespace xfer {

struct CpuPlace {
    int cpu = 0;
    int node = 0;     // NUMA node (0 when unknown)
    int package = 0;  // physical package (socket)
    int core = 0;     // core id within the package
};

// The CPUs in the process's allowed set (the main thread's affinity), ascending.
std::vector<int> allowed_cpus();
// Their places, read from /sys/devices/system/cpu/cpuN/{nodeM,topology/...}.
std::vector<CpuPlace> cpu_places(const std::vector<int>& cpus);

// Scatter order: consecutive entries alternate between NUMA node / package groups, and within
// a group take one hardware thread of every core before a second thread of any core.
std::vector<int> scatter_order(const std::vector<CpuPlace>& places);

}  // namespace xfer
