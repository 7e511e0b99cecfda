#include "cli/embedded_python.hpp"

#include <fmt/format.h>

#include "embed/python.hpp"

namespace xfer {

nlohmann::json embedded_python_facts() {
    try {
        ensure_interpreter({});
    } catch (const std::exception& e) {
        nlohmann::json out = python_description();
        out["error"] = e.what();
        return out;
    }
    return python_description();
}

std::string format_embedded_python(const nlohmann::json& facts) {
    const auto& configured = facts.at("configured");
    const std::string executable = configured.at("executable").get<std::string>();
    const std::string origin = configured.at("origin").get<std::string>();
    const std::string from =
        executable.empty()
            ? "libpython's own prefix (" + origin + ")"
            : executable + (origin == "build" ? " (the build's interpreter)"
                                              : " (python.executable, " + origin + ")");
    if (!facts.at("started").get<bool>())
        return fmt::format("python {} embedded, configured from {}: cannot start: {}\n",
                           configured.at("embedded_version").get<std::string>(), from,
                           facts.value("error", std::string("not started")));
    const std::string version = facts.at("version").get<std::string>();
    std::string out = fmt::format("python {} embedded, configured from {}\n",
                                  version.substr(0, version.find(' ')), from);
    out += fmt::format("  {:<14} {}\n", "executable", facts.at("executable").get<std::string>());
    out += fmt::format("  {:<14} {}\n", "prefix", facts.at("prefix").get<std::string>());
    if (facts.at("virtual_environment").get<bool>())
        out += fmt::format("  {:<14} {} (prefix is a virtual environment)\n", "base_prefix",
                           facts.at("base_prefix").get<std::string>());
    const auto& site = facts.at("site_packages");
    if (site.empty()) out += fmt::format("  {:<14} none in sys.path\n", "site-packages");
    for (size_t i = 0; i < site.size(); ++i)
        out +=
            fmt::format("  {:<14} {}\n", i == 0 ? "site-packages" : "", site[i].get<std::string>());
    return out;
}

}  // namespace xfer
