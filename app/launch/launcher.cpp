#include "launch/launcher.hpp"

#include <stdexcept>

#include "settings/vocabulary.hpp"

namespace xfer {

void record_worker_failure(RunContext& ctx, std::mutex& mutex, int worker,
                           const std::string& what) {
    {
        std::lock_guard lock(mutex);
        ctx.errors.push_back("worker " + std::to_string(worker) + ": " + what);
    }
    ctx.gate.abort();
}

const LauncherTraits& Launcher::traits() const { return launcher_traits(name()); }

void LauncherRegistry::add(const std::string& name, LauncherFactory factory) {
    // Names come from the vocabulary, so that scenarios, --help and the registry cannot drift.
    if (!find_launcher(name))
        throw std::logic_error("launcher '" + name + "' is not in settings/vocabulary.cpp");
    factories_[name] = std::move(factory);
}

std::unique_ptr<Launcher> LauncherRegistry::make(const std::string& name) const {
    auto it = factories_.find(name);
    return it == factories_.end() ? nullptr : it->second();
}

std::vector<std::string> LauncherRegistry::names() const {
    std::vector<std::string> out;
    for (const auto& [name, _] : factories_) out.push_back(name);
    return out;
}

}  // namespace xfer
