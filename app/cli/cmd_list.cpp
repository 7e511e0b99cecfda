#include "cli/cmd_list.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "backend/host_backend.hpp"
#include "cli/cli.hpp"
#include "cli/config_loading.hpp"
#include "scenario/loader.hpp"
#include "util/terminal_text.hpp"

namespace xfer {
namespace fs = std::filesystem;

size_t runs_needing_cuda(const std::vector<Run>& plan, const std::string& backend) {
    if (backend == "cuda") return plan.size();
    // On the host backend standing in for cuda, as `run` skips them where CUDA is unavailable.
    const auto host = make_host_backend(/*standing_in=*/true);
    return size_t(std::count_if(plan.begin(), plan.end(), [&](const Run& run) {
        return host->can_run(run.settings.transfer, run.settings.threads.count).skipped();
    }));
}

namespace {

// Before the description: how many of the scenario's runs need CUDA, by the rule `run` skips
// them with (runs_needing_cuda): "[needs CUDA] " for all of them (backend = "cuda", or every
// run), "[N of M runs need CUDA] " for some, "" for none. Runs of one trial: trials repeat them.
std::string cuda_marker(const Scenario& s, const Config& config) {
    std::vector<Run> plan = expand_plan(s);
    std::erase_if(plan, [](const Run& run) { return run.position.trial != 1; });
    const std::string backend = s.backend == "auto" ? config.backend : s.backend;
    const size_t needing = runs_needing_cuda(plan, backend);
    if (needing == 0) return "";
    if (needing == plan.size()) return "[needs CUDA] ";
    return fmt::format("[{} of {} runs need CUDA] ", needing, plan.size());
}

}  // namespace

CLI::App* add_list_command(CLI::App& app, CommonOptions& options) {
    auto* cmd = app.add_subcommand("list",
                                   "List scenarios with their descriptions, [needs CUDA] or "
                                   "[N of M runs need CUDA] before those whose runs do");
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
            std::cout << fmt::format("  {:<34} {}{}\n", f.filename().string(),
                                     cuda_marker(s, *config), terminal_safe(s.description));
        } catch (const ScenarioError& e) {
            std::cout << fmt::format("  {:<34} (invalid: {} error(s); run `xferlab check {}`)\n",
                                     f.filename().string(), e.diagnostics().size(), f.string());
        }
    }
    return exit_ok;
}

}  // namespace xfer
