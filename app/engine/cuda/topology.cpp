#include "engine/cuda/topology.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "engine/cuda/cuda_check.hpp"

namespace xfer::cuda {
namespace {

std::string trim(std::string s) {
    auto issp = [](unsigned char c) { return std::isspace(c) != 0; };
    while (!s.empty() && issp(s.back())) s.pop_back();
    size_t i = 0;
    while (i < s.size() && issp(s[i])) ++i;
    return s.substr(i);
}

// The first line of a sysfs file, trimmed; empty when it cannot be read.
std::string read_sysfs(const std::string& path) {
    std::ifstream in(path);
    std::string line;
    if (!in || !std::getline(in, line)) return "";
    return trim(line);
}

int to_int(const std::string& s, int fallback) {
    try {
        size_t used = 0;
        int v = std::stoi(s, &used);
        return used > 0 ? v : fallback;
    } catch (...) {
        return fallback;
    }
}

std::string lower(std::string s) {
    for (auto& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

std::string format_uuid(const cudaUUID_t& u) {
    const auto* b = reinterpret_cast<const unsigned char*>(u.bytes);
    char out[64];
    std::snprintf(out, sizeof out,
                  "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0],
                  b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13],
                  b[14], b[15]);
    return out;
}

// The device's sysfs folder. The driver's bus id may carry an 8-digit PCI domain
// ("00000000:3B:00.0") where sysfs has 4; try the name built from the numeric ids too.
std::string find_sysfs_path(const cudaDeviceProp& prop, const std::string& bus_id) {
    namespace fs = std::filesystem;
    char built[32];
    std::snprintf(built, sizeof built, "%04x:%02x:%02x.0", unsigned(prop.pciDomainID),
                  unsigned(prop.pciBusID), unsigned(prop.pciDeviceID));
    for (const std::string& name : {lower(bus_id), std::string(built)}) {
        std::error_code ec;
        std::string path = "/sys/bus/pci/devices/" + name;
        if (!name.empty() && fs::exists(path, ec)) return path;
    }
    return "";
}

PcieLink read_link(const std::string& sysfs) {
    PcieLink link;
    if (sysfs.empty()) return link;
    link.current_speed = read_sysfs(sysfs + "/current_link_speed");
    link.max_speed = read_sysfs(sysfs + "/max_link_speed");
    link.current_generation = pcie_generation(link.current_speed);
    link.max_generation = pcie_generation(link.max_speed);
    link.current_width = to_int(read_sysfs(sysfs + "/current_link_width"), -1);
    link.max_width = to_int(read_sysfs(sysfs + "/max_link_width"), -1);
    return link;
}

int cpu_count_configured() {
    long n = sysconf(_SC_NPROCESSORS_CONF);
    return n > 0 ? int(n) : 0;
}

// CPUs near the device, and a sentence saying where the list came from (or why it is empty).
void fill_local_cpus(DeviceTopology& t) {
    if (t.sysfs_path.empty()) {
        t.local_cpus_source = "unknown: the device's PCI folder " + t.pci_bus_id +
                              " is not in /sys/bus/pci/devices (container without sysfs?)";
        return;
    }
    const int ncpu = cpu_count_configured();
    std::string list = read_sysfs(t.sysfs_path + "/local_cpulist");
    t.local_cpus = parse_cpu_list(list);
    if (!t.local_cpus.empty()) {
        t.local_cpus_source = t.sysfs_path + "/local_cpulist";
        if (int(t.local_cpus.size()) >= ncpu && ncpu > 0)
            t.local_cpus_source += " (every CPU: the platform reports no locality)";
        return;
    }
    if (t.numa_node >= 0) {
        std::string node =
            "/sys/devices/system/node/node" + std::to_string(t.numa_node) + "/cpulist";
        t.local_cpus = parse_cpu_list(read_sysfs(node));
        if (!t.local_cpus.empty()) {
            t.local_cpus_source = node;
            return;
        }
    }
    t.local_cpus_source =
        "unknown: " + t.sysfs_path + "/local_cpulist is unreadable and the device has no NUMA node";
}

}  // namespace

std::vector<int> parse_cpu_list(std::string_view text) {
    std::vector<int> out;
    std::string s(text);
    std::stringstream ss(s);
    std::string part;
    while (std::getline(ss, part, ',')) {
        part = trim(part);
        if (part.empty()) continue;
        auto dash = part.find('-');
        int lo = to_int(part.substr(0, dash), -1);
        int hi = dash == std::string::npos ? lo : to_int(part.substr(dash + 1), -1);
        if (lo < 0 || hi < lo || hi - lo > (1 << 20)) continue;
        for (int c = lo; c <= hi; ++c) out.push_back(c);
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

int pcie_generation(std::string_view speed) {
    double gts = 0;
    std::string s(speed);
    if (std::sscanf(s.c_str(), "%lf", &gts) != 1 || gts <= 0) return -1;
    struct Step {
        double gts;
        int gen;
    };
    static constexpr Step steps[] = {{2.5, 1}, {5, 2}, {8, 3}, {16, 4}, {32, 5}, {64, 6}, {128, 7}};
    for (const auto& st : steps)
        if (gts > st.gts * 0.9 && gts < st.gts * 1.1) return st.gen;
    return -1;
}

DeviceTopology device_topology(int device) {
    DeviceTopology t;
    t.index = device;
    cudaDeviceProp prop{};
    XFER_CUDA(device, -1, cudaGetDeviceProperties(&prop, device));
    t.name = prop.name;
    t.uuid = format_uuid(prop.uuid);
    t.memory_bytes = prop.totalGlobalMem;
    t.compute_major = prop.major;
    t.compute_minor = prop.minor;
    t.multiprocessors = prop.multiProcessorCount;
    t.copy_engines = prop.asyncEngineCount;
    t.unified_addressing = prop.unifiedAddressing != 0;

    char bus[64] = {};
    XFER_CUDA(device, -1, cudaDeviceGetPCIBusId(bus, int(sizeof bus), device));
    t.sysfs_path = find_sysfs_path(prop, bus);
    t.pci_bus_id =
        t.sysfs_path.empty() ? lower(bus) : std::filesystem::path(t.sysfs_path).filename().string();
    int host_numa = -1;
    if (cudaDeviceGetAttribute(&host_numa, cudaDevAttrHostNumaId, device) == cudaSuccess)
        t.host_numa_id = host_numa;
    else
        (void)cudaGetLastError();
    if (!t.sysfs_path.empty()) t.numa_node = to_int(read_sysfs(t.sysfs_path + "/numa_node"), -1);
    t.link = read_link(t.sysfs_path);
    fill_local_cpus(t);
    return t;
}

std::vector<int> local_cpus(int device, std::string* why) {
    DeviceTopology t = device_topology(device);
    if (why) *why = t.local_cpus_source;
    return t.local_cpus;
}

nlohmann::json to_json(const DeviceTopology& t) {
    auto or_null = [](int v) { return v >= 0 ? nlohmann::json(v) : nlohmann::json(nullptr); };
    nlohmann::json link = {
        {"current_speed", t.link.current_speed},
        {"max_speed", t.link.max_speed},
        {"current_generation", or_null(t.link.current_generation)},
        {"max_generation", or_null(t.link.max_generation)},
        {"current_width", or_null(t.link.current_width)},
        {"max_width", or_null(t.link.max_width)},
    };
    return {
        {"index", t.index},
        {"name", t.name},
        {"uuid", t.uuid},
        {"pci_bus_id", t.pci_bus_id},
        {"numa_node", or_null(t.numa_node)},
        {"host_numa_id", or_null(t.host_numa_id)},
        {"local_cpus", t.local_cpus},
        {"local_cpus_source", t.local_cpus_source},
        {"pcie_link", link},
        {"memory_bytes", t.memory_bytes},
        {"compute_capability",
         std::to_string(t.compute_major) + "." + std::to_string(t.compute_minor)},
        {"multiprocessors", t.multiprocessors},
        {"copy_engines", t.copy_engines},
        {"unified_addressing", t.unified_addressing},
    };
}

nlohmann::json topology_json() {
    nlohmann::json out;
    int runtime = 0, driver = 0, count = 0;
    cudaRuntimeGetVersion(&runtime);
    cudaDriverGetVersion(&driver);
    out["runtime_version"] = runtime;
    out["driver_version"] = driver;
    XFER_CUDA(-1, -1, cudaGetDeviceCount(&count));
    out["device_count"] = count;
    out["devices"] = nlohmann::json::array();
    for (int d = 0; d < count; ++d) out["devices"].push_back(to_json(device_topology(d)));
    // Peer access: whether device `from` can map `to`'s memory (NVLink or PCIe P2P), with the
    // driver's relative performance rank of the link (lower is better).
    nlohmann::json peers = nlohmann::json::array();
    for (int from = 0; from < count; ++from) {
        for (int to = 0; to < count; ++to) {
            if (from == to) continue;
            int can = 0, rank = -1, atomics = 0;
            XFER_CUDA(from, -1, cudaDeviceCanAccessPeer(&can, from, to));
            if (cudaDeviceGetP2PAttribute(&rank, cudaDevP2PAttrPerformanceRank, from, to) !=
                cudaSuccess) {
                (void)cudaGetLastError();
                rank = -1;
            }
            if (cudaDeviceGetP2PAttribute(&atomics, cudaDevP2PAttrNativeAtomicSupported, from,
                                          to) != cudaSuccess) {
                (void)cudaGetLastError();
                atomics = 0;
            }
            peers.push_back({{"from", from},
                             {"to", to},
                             {"can_access_peer", can != 0},
                             {"performance_rank", rank},
                             {"native_atomics", atomics != 0}});
        }
    }
    out["peer_access"] = peers;
    return out;
}

}  // namespace xfer::cuda
