#pragma once
#include <iostream>
#include <optional>

#include "cli/commands.hpp"
#include "run/config.hpp"
#include "scenario/diagnostics.hpp"

namespace xfer {

// Every diagnostic of `e`, one per line, on stderr.
inline void print_diagnostics(const ScenarioError& e) {
    for (const auto& d : e.diagnostics()) std::cerr << format_diagnostic(d) << "\n";
}

// load_config with --config/--payload-dir applied; prints diagnostics and returns nullopt on error.
inline std::optional<Config> load_config_or_report(const CommonOptions& common) {
    try {
        Config config = load_config(
            common.config ? std::optional<std::filesystem::path>(*common.config) : std::nullopt);
        if (common.payload_dir) config.payload_dir = std::filesystem::absolute(*common.payload_dir);
        return config;
    } catch (const ScenarioError& e) {
        print_diagnostics(e);
        return std::nullopt;
    }
}

}  // namespace xfer
