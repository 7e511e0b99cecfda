#include "cli/cmd_list.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <iostream>

#include "cli/cli.hpp"
#include "cli/config_loading.hpp"
#include "scenario/loader.hpp"

namespace xfer {
namespace fs = std::filesystem;

CLI::App* add_list_command(CLI::App& app, CommonOptions& options) {
    auto* cmd = app.add_subcommand(
        "list", "List scenarios with their descriptions, [needs CUDA] before those that do");
    add_common_options(cmd, options);
    return cmd;
}

int cmd_list(const CommonOptions& common) {
    auto config = load_config_or_report(common);
    if (!config) return exit_bad_input;
    std::vector<fs::path> files;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(config->scenario_dir, ec))
        if (e.path().extension() == ".toml") files.push_back(e.path());
    if (ec) {
        std::cerr << "xferlab: cannot read " << config->scenario_dir.string() << ": "
                  << ec.message() << "\n";
        return exit_bad_input;
    }
    std::sort(files.begin(), files.end());
    std::cout << config->scenario_dir.string() << ":\n";
    for (const auto& f : files) {
        try {
            Scenario s = load_scenario(f);
            // backend = "cuda" refuses to run without it; "auto" and "host" run anywhere.
            const bool needs_cuda = s.backend == "cuda";
            std::cout << fmt::format("  {:<34} {}{}\n", f.filename().string(),
                                     needs_cuda ? "[needs CUDA] " : "", s.description);
        } catch (const ScenarioError& e) {
            std::cout << fmt::format("  {:<34} (invalid: {} error(s); run `xferlab check {}`)\n",
                                     f.filename().string(), e.diagnostics().size(), f.string());
        }
    }
    return exit_ok;
}

}  // namespace xfer
