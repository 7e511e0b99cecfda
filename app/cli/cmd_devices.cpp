#include "cli/cmd_devices.hpp"

#include <fmt/format.h>

#include <iostream>

#include "backend/backend.hpp"
#include "cli/cli.hpp"
#include "cli/config_loading.hpp"
#include "cli/embedded_python.hpp"

namespace xfer {

CLI::App* add_devices_command(CLI::App& app, DevicesOptions& options) {
    auto* cmd =
        app.add_subcommand("devices", "Backends, devices, topology, and why one is unavailable");
    cmd->add_flag("--json", options.json, "Print JSON");
    add_common_options(cmd, options.common);
    return cmd;
}

int cmd_devices(const DevicesOptions& options) {
    // The config chooses the embedded Python (python.executable), which is described last.
    if (!load_config_or_report(options.common)) return exit_bad_input;
    nlohmann::json backends = nlohmann::json::array();
    for (const auto& b : list_backends()) {
        nlohmann::json entry = {
            {"backend", b.name}, {"available", b.available}, {"reason", b.reason}};
        if (b.available) {
            try {
                entry["describe"] = make_backend(b.name, nullptr)->describe();
            } catch (const std::exception& e) {
                entry["available"] = false;
                entry["reason"] = e.what();
            }
        }
        backends.push_back(entry);
    }
    const nlohmann::json python = embedded_python_facts();
    if (options.json) {
        std::cout << nlohmann::json{{"backends", backends}, {"python", python}}.dump(2) << "\n";
        return exit_ok;
    }
    for (const auto& e : backends) {
        std::cout << fmt::format("{:<6} {}: {}\n", e["backend"].get<std::string>(),
                                 e["available"].get<bool>() ? "available" : "unavailable",
                                 e["reason"].get<std::string>());
        if (e.contains("describe")) std::cout << e["describe"].dump(2) << "\n";
    }
    std::cout << format_embedded_python(python);
    return exit_ok;
}

}  // namespace xfer
