#include <fmt/format.h>

#include <iostream>

#include "backend/backend.hpp"
#include "cli/cli.hpp"
#include "cli/cmd_devices.hpp"

namespace xfer {

int cmd_devices(const CommonOptions&, bool json) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& b : list_backends()) {
        nlohmann::json entry = {{"backend", b.name}, {"available", b.available}, {"reason", b.reason}};
        if (b.available) {
            try {
                entry["describe"] = make_backend(b.name, nullptr)->describe();
            } catch (const std::exception& e) {
                entry["available"] = false;
                entry["reason"] = e.what();
            }
        }
        out.push_back(entry);
    }
    if (json) {
        std::cout << out.dump(2) << "\n";
        return exit_ok;
    }
    for (const auto& e : out) {
        std::cout << fmt::format("{:<6} {}: {}\n", e["backend"].get<std::string>(),
                                 e["available"].get<bool>() ? "available" : "unavailable",
                                 e["reason"].get<std::string>());
        if (e.contains("describe")) std::cout << e["describe"].dump(2) << "\n";
    }
    return exit_ok;
}

}  // namespace xfer
