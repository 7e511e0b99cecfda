// What several explanation rules share: the GIL a run took, serialized devices, lists.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "report/explain/explain_rules_internal.hpp"
#include "settings/vocabulary.hpp"

namespace xfer::explain {

std::optional<GilPolicy> gil_of(const RunResult& run) {
    // The GIL is the run's business where the launcher takes `gil`: always for a launcher that
    // runs no payload (host+gil) or needs one (python), with a payload for the others.
    const LauncherDescriptor* d = find_launcher(run.settings.launcher);
    if (!d || !gil_applies(d->traits, !run.settings.payload.empty())) return std::nullopt;
    return run.settings.gil;
}

size_t workers_with(const RunAnalysis& a, size_t copies) {
    size_t n = 0;
    for (const WorkerStats& w : a.workers) n += w.copies >= copies ? 1 : 0;
    return n;
}

const DeviceStats* device_stats(const RunAnalysis& a, int device) {
    for (const DeviceStats& d : a.devices)
        if (d.device == device) return &d;
    return nullptr;
}

bool serialized(const RunAnalysis& a, const HandoffStats& h) {
    // Workers as the catalogue counts them on a device: those with a measured device-timed copy
    // there (a warm-up of a worker in the sequence does not make it a second worker).
    const DeviceStats* d = device_stats(a, h.device);
    return h.clock == "device" && d && d->workers >= 2 && d->peak_in_flight == 1;
}

bool devices_took_turns(const RunAnalysis& a) {
    return !a.devices.empty() &&
           std::all_of(a.devices.begin(), a.devices.end(), [](const DeviceStats& d) {
               return d.workers >= 2 && d.peak_in_flight == 1;
           });
}

std::optional<double> serialized_handoff_rate(const RunAnalysis& a) {
    double sum = 0;
    int n = 0;
    for (const HandoffStats& h : a.handoffs) {
        if (!serialized(a, h)) continue;
        sum += h.handoff_rate;
        ++n;
    }
    if (n == 0) return std::nullopt;
    return sum / n;
}

std::string worker_list(const std::vector<int>& w) {
    return fmt::format("worker{} {}", w.size() == 1 ? "" : "s", fmt::join(w, ", "));
}

std::vector<int> indexes(const Results& results, const std::vector<size_t>& runs) {
    std::vector<int> out;
    for (size_t r : runs) out.push_back(results.runs[r].position.index);
    return out;
}

std::vector<size_t> trials_of(const Results& results, size_t run) {
    std::vector<size_t> out;
    for (size_t i = 0; i < results.runs.size(); ++i)
        if (results.runs[i].position.label == results.runs[run].position.label) out.push_back(i);
    return out;
}

}  // namespace xfer::explain
