#pragma once
// Where each CUDA device sits: PCI address, NUMA node, the CPUs close to it, its PCIe link, and
// which devices reach each other directly. Read from the CUDA runtime and from sysfs
// (/sys/bus/pci/devices/<bus id>/). No CUDA header here: launch/ uses local_cpus() for
// affinity = "gpu-local" (guard calls with #ifdef XFER_HAVE_CUDA).
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace xfer::cuda {

struct PcieLink {
    std::string current_speed;  // sysfs text, e.g. "32.0 GT/s PCIe"; empty when unreadable
    std::string max_speed;
    int current_generation = -1;  // 1..6 from the speed; -1 unknown
    int max_generation = -1;
    int current_width = -1;  // lanes; -1 unknown
    int max_width = -1;
};

struct DeviceTopology {
    int index = -1;
    std::string name;
    std::string uuid;               // "GPU-xxxxxxxx-..." as nvidia-smi prints it
    std::string pci_bus_id;         // "0000:3b:00.0" (lower case, as sysfs names it)
    std::string sysfs_path;         // "/sys/bus/pci/devices/0000:3b:00.0", empty when absent
    int numa_node = -1;             // sysfs numa_node; -1: none or unknown
    int host_numa_id = -1;          // the driver's view (cudaDevAttrHostNumaId); -1: none
    std::vector<int> local_cpus;    // CPUs close to the device; empty when unknown
    std::string local_cpus_source;  // where local_cpus came from, or why it is empty
    PcieLink link;
    uint64_t memory_bytes = 0;
    int compute_major = 0;
    int compute_minor = 0;
    int multiprocessors = 0;
    int copy_engines = 0;  // asyncEngineCount
    bool unified_addressing = false;
};

// One device's topology. Throws std::runtime_error naming the CUDA call that failed.
DeviceTopology device_topology(int device);

// CPUs local to `device` for affinity = "gpu-local": sysfs local_cpulist of the device, else the
// cpulist of its NUMA node. Empty when neither is known; `why` (optional) then says why.
std::vector<int> local_cpus(int device, std::string* why = nullptr);

// Every device, the peer-access matrix and versions, as `xferlab devices` and results.json show.
nlohmann::json topology_json();
nlohmann::json to_json(const DeviceTopology& t);

// "0-3,8,10-11" -> {0,1,2,3,8,10,11}. Malformed parts are skipped.
std::vector<int> parse_cpu_list(std::string_view text);
// "32.0 GT/s PCIe" -> 5 (2.5 -> 1, 5 -> 2, 8 -> 3, 16 -> 4, 32 -> 5, 64 -> 6); -1 unknown.
int pcie_generation(std::string_view speed);

}  // namespace xfer::cuda
