// Which CPU each worker gets under each affinity mode, on made-up topologies where the order
// matters and on this machine where the sets are real.
#include <sched.h>

#include <algorithm>

#include "system/cpu_topology.hpp"
#include "launch/thread_control.hpp"
#include "support/catch.hpp"

using namespace xfer;

TEST_CASE("scatter alternates sockets, then cores, then hardware threads", "[affinity]") {
    // 2 sockets x 2 cores x 2 threads, numbered as Linux often does: socket 0 cores are CPUs
    // 0,1 with siblings 4,5; socket 1 cores are CPUs 2,3 with siblings 6,7.
    std::vector<CpuPlace> places;
    for (int cpu = 0; cpu < 8; ++cpu) {
        int socket = (cpu % 4) / 2;
        places.push_back({cpu, socket, socket, cpu % 2});
    }
    CHECK(scatter_order(places) == std::vector<int>{0, 2, 1, 3, 4, 6, 5, 7});

    // One socket, siblings adjacent (0,1 share a core): every core first.
    std::vector<CpuPlace> smt = {{0, 0, 0, 0}, {1, 0, 0, 0}, {2, 0, 0, 1}, {3, 0, 0, 1}};
    CHECK(scatter_order(smt) == std::vector<int>{0, 2, 1, 3});

    // Uneven groups keep every CPU exactly once.
    std::vector<CpuPlace> uneven = {{0, 0, 0, 0}, {1, 0, 0, 1}, {2, 0, 0, 2}, {5, 1, 1, 0}};
    CHECK(scatter_order(uneven) == std::vector<int>{0, 5, 1, 2});
}

TEST_CASE("affinity per mode and worker", "[affinity]") {
    const std::vector<int> allowed = allowed_cpus();
    REQUIRE(!allowed.empty());
    CHECK(affinity_for_worker({AffinityKind::none, {}}, 0, 2).empty());
    CHECK(affinity_for_worker({AffinityKind::compact, {}}, 0, 2) == std::vector<int>{allowed[0]});
    CHECK(affinity_for_worker({AffinityKind::compact, {}}, int(allowed.size()), 2) ==
          std::vector<int>{allowed[0]});  // wraps
    CHECK(affinity_for_worker({AffinityKind::list, {4, 6}}, 3, 4) == std::vector<int>{6});
    CHECK(affinity_for_worker({AffinityKind::gpu_local, {}}, 1, 2, {8, 9, 10}) ==
          std::vector<int>{8, 9, 10});
    CHECK(affinity_for_worker({AffinityKind::gpu_local, {}}, 1, 2).empty());
    auto s = affinity_for_worker({AffinityKind::scatter, {}}, 0, 2);
    REQUIRE(s.size() == 1);
    CHECK(std::find(allowed.begin(), allowed.end(), s[0]) != allowed.end());
}

TEST_CASE("allowed_cpus is this process's affinity set", "[affinity]") {
    cpu_set_t set;
    CPU_ZERO(&set);
    REQUIRE(sched_getaffinity(0, sizeof set, &set) == 0);
    CHECK(int(allowed_cpus().size()) == CPU_COUNT(&set));
    CHECK(cpu_places(allowed_cpus()).size() == allowed_cpus().size());
}
