// What `xferlab devices` and results.json say about the devices, and the CPUs gpu-local uses.
#ifdef XFER_HAVE_CUDA
#include <unistd.h>

#include <regex>
#include <string>

#include "backend/cuda/cuda_backend.hpp"
#include "engine/cuda/topology.hpp"
#include "gpu_harness.hpp"
#include "support/catch.hpp"

using namespace xfer;
using namespace xfer::gpu_test;

TEST_CASE("describe() names every device with its PCI address, memory and copy engines",
          "[gpu][topology]") {
    nlohmann::json d = cuda_backend().describe();
    INFO(d.dump(2));
    const int n = d["device_count"].get<int>();
    REQUIRE(n >= 1);
    REQUIRE(d["devices"].size() == size_t(n));
    const std::regex bus_id("[0-9a-f]{4,8}:[0-9a-f]{2}:[0-9a-f]{2}\\.[0-9a-f]");
    for (int i = 0; i < n; ++i) {
        const auto& dev = d["devices"][size_t(i)];
        CHECK(dev["index"].get<int>() == i);
        CHECK_FALSE(dev["name"].get<std::string>().empty());
        CHECK(std::regex_match(dev["pci_bus_id"].get<std::string>(), bus_id));
        CHECK(dev["memory_bytes"].get<uint64_t>() > (uint64_t(1) << 30));
        CHECK(dev["copy_engines"].get<int>() >= 1);
        CHECK(dev["compute_capability"].get<std::string>().find('.') != std::string::npos);
    }
    CHECK(d["peer_access"].size() == size_t(n * (n - 1)));
    CHECK(d["cupti"]["available"].get<bool>());
    CHECK(d["runtime_version"].get<int>() >= 12000);
}

TEST_CASE("gpu-local CPUs exist on this machine, or the topology says why they are unknown",
          "[gpu][topology]") {
    const long ncpu = sysconf(_SC_NPROCESSORS_CONF);
    for (int dev = 0; dev < device_count(); ++dev) {
        std::string why;
        std::vector<int> cpus = cuda::local_cpus(dev, &why);
        INFO("device " << dev << ": " << why);
        if (cpus.empty()) {
            CHECK(why.rfind("unknown", 0) == 0);
            WARN("device " << dev << ": no local CPU list: " << why);
            continue;
        }
        for (int c : cpus) CHECK((c >= 0 && c < ncpu));
        // The launcher reads the same list from describe().
        auto listed = cuda_backend().describe()["devices"][size_t(dev)]["local_cpus"];
        CHECK(listed.get<std::vector<int>>() == cpus);
    }
}

TEST_CASE("backend auto picks cuda when a device answers", "[gpu][topology]") {
    std::string note = "untouched";
    auto backend = make_backend("auto", &note);
    CHECK(backend->name() == "cuda");
    CHECK(note == "untouched");
    bool listed = false;
    for (const auto& a : list_backends())
        if (a.name == "cuda") listed = a.available;
    CHECK(listed);
}
#endif  // XFER_HAVE_CUDA
