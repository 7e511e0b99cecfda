#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <map>

#include "backend/backend.hpp"
#include "cli/cli.hpp"
#include "cli/cmd_check.hpp"
#include "cli/config_loading.hpp"
#include "results/vocabulary.hpp"
#include "run/memory_preflight.hpp"
#include "system/memory_limits.hpp"
#include "scenario/loader.hpp"
#include "scenario/payload_files.hpp"
#include "scenario/units.hpp"

namespace xfer {
namespace {

// Memory per run as the backend that would run it counts it; backends are made once.
class NeedEstimator {
public:
    explicit NeedEstimator(std::string config_backend) : config_backend_(std::move(config_backend)) {}
    Backend::Need need(const Run& run) {
        std::string name = run.backend == "auto" ? config_backend_ : run.backend;
        auto it = backends_.find(name);
        if (it == backends_.end()) {
            std::unique_ptr<Backend> b;
            try {
                b = make_backend(name, nullptr);
            } catch (const std::exception&) {
                b = make_backend("host", nullptr);  // `run` reports the unavailability
            }
            it = backends_.emplace(name, std::move(b)).first;
        }
        return it->second->memory_needed(run.transfer, run.threads.count);
    }

private:
    std::string config_backend_;
    std::map<std::string, std::unique_ptr<Backend>> backends_;
};

void print_plan(const Scenario& scenario, const std::vector<Run>& plan, NeedEstimator& estimator) {
    std::cout << fmt::format("{}: {} — {}\n", scenario.source.string(), scenario.name,
                             scenario.description);
    // Labels are printed whole: a cut one could hide the part that tells two runs apart.
    size_t width = 5;
    for (const Run& run : plan) width = std::max(width, run.label.size());
    std::cout << fmt::format("  {:>3}  {:<{}} {:>7} {:>10} {:>6}  {}\n", "run", "label", width,
                             "threads", "bytes", "copies", "memory");
    uint64_t total_bytes = 0, total_copies = 0;
    Backend::Need peak;
    PlanMemory memory;
    for (const Run& run : plan) {
        uint64_t copies = uint64_t(run.threads.count) * (run.transfer.repetitions + run.transfer.warmup);
        Backend::Need need = estimator.need(run);
        peak.host_bytes = std::max(peak.host_bytes, need.host_bytes);
        peak.device_bytes = std::max(peak.device_bytes, need.device_bytes);
        const LauncherDescriptor* launcher = find_launcher(run.spec.launcher);
        add_run_need(memory, need, run.threads.count, launcher && launcher->workers_elsewhere);
        total_bytes += copies * run.transfer.bytes;
        total_copies += copies;
        std::string mem = format_size(need.host_bytes) + " host";
        if (need.device_bytes) mem += " + " + format_size(need.device_bytes) + " dev";
        std::cout << fmt::format("  {:>3}  {:<{}} {:>7} {:>10} {:>6}  {}\n", run.index, run.label,
                                 width, run.threads.count, format_size(run.transfer.bytes), copies,
                                 mem);
    }
    std::cout << fmt::format("  {} runs ({} [[run]] x {} sweep points), {} copies, {} moved\n",
                             plan.size(), scenario.runs.size(),
                             scenario.runs.empty() ? 0 : plan.size() / scenario.runs.size(),
                             total_copies, format_size(total_bytes));
    std::string peak_text = format_size(peak.host_bytes) + " host";
    if (peak.device_bytes) peak_text += ", " + format_size(peak.device_bytes) + " device";
    std::cout << fmt::format("  peak memory (largest run; runs execute one at a time): {}\n",
                             peak_text);
    // What `run` would say here; check still exits 0: the file may be meant for another machine.
    const MemoryBudget budget = read_memory_budget();
    const std::string problem = memory_problem(memory, budget);
    std::cout << (problem.empty()
                      ? fmt::format("  on this machine: fits ({} can be allocated; {} binds)\n",
                                    format_size(budget.left()), limit_name(budget.binding()))
                      : fmt::format("  on this machine: does not fit: {}\n", problem));
}

// Each payload the plan runs: where it was found and its SHA-256, as results will record it.
void print_payloads(const Scenario& scenario, const std::vector<std::filesystem::path>& folders) {
    std::vector<std::string> seen;
    for (const RunSpec& spec : scenario.runs) {
        if (spec.payload.empty() || std::find(seen.begin(), seen.end(), spec.payload) != seen.end())
            continue;
        seen.push_back(spec.payload);
        std::string error;
        if (auto p = record_payload(spec.payload, folders, error)) {
            std::cout << fmt::format("  payload {}: {} sha256 {}\n", p->name, p->path, p->sha256);
        }
    }
    if (!seen.empty())
        std::cout << fmt::format("  payload folders, searched in order: {}\n",
                                 folder_list(folders));
}

}  // namespace

int cmd_check(const CommonOptions& common, const std::vector<std::string>& files,
              const std::vector<std::string>& sets) {
    auto config = load_config_or_report(common);
    if (!config) return exit_bad_input;
    NeedEstimator estimator(config->backend);
    int code = exit_ok;
    for (const auto& file : files) {
        try {
            Scenario scenario = load_scenario(file, sets);
            const auto folders = payload_search_path(*config);
            check_payloads(scenario, folders);
            print_plan(scenario, expand_plan(scenario), estimator);
            print_payloads(scenario, folders);
        } catch (const ScenarioError& e) {
            print_diagnostics(e);
            std::cerr << fmt::format("{}: {} error(s)\n", file, e.diagnostics().size());
            code = exit_bad_input;
        }
    }
    return code;
}

}  // namespace xfer
