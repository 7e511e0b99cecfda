#include "launch/worker_affinities.hpp"

#include "backend/backend.hpp"
#include "launch/thread_control.hpp"

namespace xfer::detail {
namespace {

// The device's local CPU list as the backend describes it; empty when it does not say.
std::vector<int> local_cpus_of_device(const nlohmann::json& description, int device) {
    if (device < 0 || !description.is_object()) return {};
    auto devices = description.find("devices");
    if (devices == description.end() || !devices->is_array() || size_t(device) >= devices->size())
        return {};
    const nlohmann::json& d = (*devices)[size_t(device)];
    auto cpus = d.find("local_cpus");
    if (!d.is_object() || cpus == d.end() || !cpus->is_array()) return {};
    std::vector<int> out;
    for (const auto& c : *cpus)
        if (c.is_number_integer()) out.push_back(c.get<int>());
    return out;
}

}  // namespace

std::vector<std::vector<int>> worker_affinities(const RunContext& ctx,
                                                std::vector<std::string>& notes) {
    const AffinitySpec& spec = ctx.run.settings.threads.affinity;
    const int n = int(ctx.workers.size());
    std::vector<std::vector<int>> out(static_cast<size_t>(n));
    nlohmann::json description;
    if (spec.kind == AffinityKind::gpu_local) description = ctx.backend.describe();
    bool unknown_noted = false;
    for (int i = 0; i < n; ++i) {
        std::vector<int> local;
        if (spec.kind == AffinityKind::gpu_local) {
            local = local_cpus_of_device(description, ctx.workers[size_t(i)]->transfer().device());
            if (local.empty() && !unknown_noted) {
                notes.push_back("affinity gpu-local: backend " + ctx.backend.name() +
                                " does not know a device's local CPUs; affinity left as inherited");
                unknown_noted = true;
            }
        }
        // The worker's place in the whole run: a process or rank holds only some workers.
        out[size_t(i)] = affinity_for_worker(spec, ctx.workers[size_t(i)]->index(),
                                             ctx.run.settings.threads.count, local);
    }
    return out;
}


}  // namespace xfer::detail
