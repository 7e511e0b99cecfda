#include "system/cpu_topology.hpp"

#include "system/thread_probe.hpp"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <tuple>
#include <utility>

namespace xfer {
namespace {

int read_int(const std::string& path, int fallback) {
    std::ifstream in(path);
    int v = 0;
    return (in >> v) ? v : fallback;
}

int node_of(int cpu) {
    const int node = numa_node_of_cpu(cpu);
    return node < 0 ? 0 : node;  // no node entry: a machine without NUMA is one node
}

}  // namespace

std::vector<int> allowed_cpus() {
    // The process's set is the main thread's (tid == pid): the calling thread may already be
    // pinned by an earlier run.
    cpu_set_t set;
    CPU_ZERO(&set);
    std::vector<int> out;
    if (sched_getaffinity(getpid(), sizeof set, &set) == 0) {
        for (int c = 0; c < CPU_SETSIZE; ++c)
            if (CPU_ISSET(c, &set)) out.push_back(c);
    }
    if (out.empty()) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        for (int c = 0; c < (n > 0 ? n : 1); ++c) out.push_back(c);
    }
    return out;
}

std::vector<CpuPlace> cpu_places(const std::vector<int>& cpus) {
    std::vector<CpuPlace> out;
    for (int c : cpus) {
        const std::string topo = "/sys/devices/system/cpu/cpu" + std::to_string(c) + "/topology/";
        out.push_back({c, node_of(c), read_int(topo + "physical_package_id", 0),
                       read_int(topo + "core_id", c)});
    }
    return out;
}

std::vector<int> scatter_order(const std::vector<CpuPlace>& places) {
    // Per (node, package) group: the CPUs ordered by "how many siblings of this core came
    // before" first, so every core's first thread comes before any core's second thread.
    std::map<std::pair<int, int>, std::vector<std::pair<int, int>>> groups;  // -> (rank, cpu)
    std::map<std::tuple<int, int, int>, int> seen_per_core;
    std::vector<CpuPlace> sorted = places;
    std::sort(sorted.begin(), sorted.end(),
              [](const CpuPlace& a, const CpuPlace& b) { return a.cpu < b.cpu; });
    for (const CpuPlace& p : sorted) {
        int rank = seen_per_core[{p.node, p.package, p.core}]++;
        groups[{p.node, p.package}].push_back({rank, p.cpu});
    }
    std::vector<std::vector<int>> lanes;
    for (auto& [key, cpus] : groups) {
        std::stable_sort(cpus.begin(), cpus.end(),
                         [](const auto& a, const auto& b) { return a.first < b.first; });
        std::vector<int> lane;
        for (const auto& rc : cpus) lane.push_back(rc.second);
        lanes.push_back(std::move(lane));
    }
    // Round-robin over the groups.
    std::vector<int> out;
    for (size_t i = 0; out.size() < places.size(); ++i)
        for (const auto& lane : lanes)
            if (i < lane.size()) out.push_back(lane[i]);
    return out;
}

}  // namespace xfer
