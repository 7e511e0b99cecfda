#include "report/analysis/host_nodes.hpp"

#include "results/copy_kinds.hpp"

namespace xfer {
namespace {

void take_devices(const BackendDevices& d, std::map<int, int>& out) {
    if (!d.description.is_object()) return;
    const auto list = d.description.find("devices");
    if (list == d.description.end() || !list->is_array()) return;
    for (const auto& dev : *list)
        if (dev.is_object() && dev.contains("index") && dev["index"].is_number_integer() &&
            dev.contains("numa_node") && dev["numa_node"].is_number_integer() &&
            dev["numa_node"].get<int>() >= 0)
            out.emplace(dev["index"].get<int>(), dev["numa_node"].get<int>());  // first kept
}

// A watched copy's host side is pageable: the copies whose pages the program placed itself.
bool counts(const Record& r) {
    if (r.warmup || r.failed || r.foreign()) return false;
    if (!r.watched()) return true;
    const bool from_device = r.copy_kind == copy_kind::dtoh || r.copy_kind == 4;  // DtoH, AtoH
    return (from_device ? r.dst_kind : r.src_kind) == memory_kind::pageable;
}

}  // namespace

std::map<int, int> nearest_nodes(const std::optional<std::vector<BackendDevices>>& devices) {
    std::map<int, int> out;
    if (!devices) return out;
    for (const BackendDevices& d : *devices)
        if (d.backend == "watched") take_devices(d, out);
    for (const BackendDevices& d : *devices)
        if (d.backend != "watched") take_devices(d, out);
    return out;
}

std::vector<HostNodes> host_nodes(const RunResult& run,
                                  const std::optional<std::vector<BackendDevices>>& devices) {
    std::map<int, HostNodes> by_device;
    bool any = false;
    for (const Record& r : run.records) {
        if (!counts(r)) continue;
        HostNodes& n = by_device[r.device];
        n.device = r.device;
        ++n.copies;
        if (r.host_node >= 0) {
            any = true;
            ++n.sampled;
            ++n.copies_on[r.host_node];
        }
    }
    std::vector<HostNodes> out;
    if (!any) return out;
    const std::map<int, int> nearest = nearest_nodes(devices);
    for (auto& [device, n] : by_device) {
        if (auto it = nearest.find(device); it != nearest.end()) n.nearest_node = it->second;
        out.push_back(std::move(n));
    }
    return out;
}

}  // namespace xfer
