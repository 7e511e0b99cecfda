#include "launch/launcher.hpp"

namespace xfer {

void LauncherRegistry::add(const std::string& name, LauncherFactory factory) {
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
