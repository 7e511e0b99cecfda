#pragma once
#include <iostream>
#include <optional>

#include "cli/common_options.hpp"
#include "embed/python.hpp"
#include "run/config.hpp"
#include "run/plan/plan_runner.hpp"
#include "scenario/diagnostics.hpp"

namespace xfer {

// load_config with --config/--payload-dir applied; prints diagnostics and returns nullopt on error.
inline std::optional<Config> load_config_or_report(const CommonOptions& common) {
    try {
        Config config = load_config(
            common.config ? std::optional<std::filesystem::path>(*common.config) : std::nullopt);
        // --payload-dir folders come first, before the config's.
        std::vector<std::filesystem::path> dirs;
        for (const auto& d : common.payload_dirs) dirs.push_back(std::filesystem::absolute(d));
        dirs.insert(dirs.end(), config.payload_dirs.begin(), config.payload_dirs.end());
        config.payload_dirs = std::move(dirs);
        // Every command that loads the config may start the embedded Python: choose it first.
        if (!config.python_executable.empty())
            choose_python({config.python_executable, config.python_executable_origin});
        return config;
    } catch (const ScenarioError& e) {
        print_diagnostics(e, std::cerr);
        return std::nullopt;
    }
}

}  // namespace xfer
