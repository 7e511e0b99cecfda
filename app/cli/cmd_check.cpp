#include "cli/cmd_check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <iostream>

#include "cli/cli.hpp"
#include "cli/config_loading.hpp"
#include "settings/vocabulary.hpp"
#include "run/plan/launchers.hpp"
#include "run/sizing/memory_preflight.hpp"
#include "run/plan/plan_runner.hpp"
#include "scenario/loader.hpp"
#include "scenario/payload_files.hpp"
#include "system/memory_limits.hpp"
#include "util/terminal_text.hpp"
#include "util/units.hpp"

namespace xfer {
namespace {

// "host (trial 2)": a run's trials share its label, the trial tells them apart. The label is
// the file's text, shown as the terminal may show it (util/terminal_text.hpp).
std::string shown_label(const Scenario& scenario, const Run& run) {
    const std::string label = terminal_safe(run.position.label);
    return scenario.trials > 1 ? fmt::format("{} (trial {})", label, run.position.trial) : label;
}

void print_plan(const Scenario& scenario, const std::vector<Run>& plan, PlanRunner& runner) {
    std::cout << fmt::format("{}: {} — {}\n", scenario.source.string(),
                             terminal_safe(scenario.name), terminal_safe(scenario.description));
    // Labels are printed whole: a cut one could hide the part that tells two runs apart.
    size_t width = 5;
    for (const Run& run : plan) width = std::max(width, shown_label(scenario, run).size());
    std::cout << fmt::format("  {:>3}  {:<{}} {:>7} {:>10} {:>6}  {}\n", "run", "label", width,
                             "threads", "bytes", "copies", "memory");
    uint64_t total_bytes = 0, total_copies = 0;
    size_t skipped = 0;  // runs `run` skips here: their copies are not in the totals
    Backend::Need peak;
    bool unknown = false;  // a run on an unavailable backend: its need is not counted
    for (const Run& run : plan) {
        uint64_t copies = uint64_t(run.settings.threads.count) *
                          (run.settings.transfer.repetitions + run.settings.transfer.warmup);
        std::string mem = "? (backend unavailable)";
        if (!runner.backend_skip_reason(run).empty()) {
            ++skipped;
            mem = "none (skipped here)";  // the warnings below say why
        } else {
            total_bytes += copies * run.settings.transfer.bytes;
            total_copies += copies;
            if (const auto need = runner.run_need(run)) {
                peak.host_bytes = std::max(peak.host_bytes, need->host_bytes);
                peak.device_bytes = std::max(peak.device_bytes, need->device_bytes);
                mem = format_size(need->host_bytes) + " host";
                if (need->device_bytes) mem += " + " + format_size(need->device_bytes) + " dev";
            } else {
                unknown = true;
            }
        }
        std::cout << fmt::format("  {:>3}  {:<{}} {:>7} {:>10} {:>6}  {}\n", run.position.index,
                                 shown_label(scenario, run), width, run.settings.threads.count,
                                 format_size(run.settings.transfer.bytes), copies, mem);
    }
    const size_t per_trial = plan.size() / size_t(scenario.trials);
    std::cout << fmt::format(
        "  {} runs ({} [[run]] x {} sweep points{}), {} copies, {} moved{}\n", plan.size(),
        scenario.runs.size(), scenario.runs.empty() ? 0 : per_trial / scenario.runs.size(),
        scenario.trials > 1
            ? fmt::format(" x {} trials ({})", scenario.trials, to_string(scenario.order))
            : "",
        total_copies, format_size(total_bytes),
        skipped
            ? fmt::format(" ({} run{} skipped here not counted)", skipped, skipped == 1 ? "" : "s")
            : "");
    std::string peak_text = format_size(peak.host_bytes) + " host";
    if (peak.device_bytes) peak_text += ", " + format_size(peak.device_bytes) + " device";
    if (unknown) peak_text += " (runs on an unavailable backend not counted)";
    std::cout << fmt::format("  peak memory (largest run; runs execute one at a time): {}\n",
                             peak_text);
    const MemoryBudget budget = read_memory_budget();
    const std::string problem = memory_problem(runner.memory_needed(plan), budget);
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
            std::cout << fmt::format("  payload {}: {} sha256 {}\n", terminal_safe(p->name),
                                     terminal_safe(p->path), p->sha256);
        } else {
            std::cerr << scenario.source.string() << ": " << terminal_safe(error) << "\n";
        }
    }
    if (!seen.empty())
        std::cout << fmt::format("  payload folders, searched in order: {}\n",
                                 folder_list(folders));
}

// One file: the plan, then what `run` would refuse here (the same checks, the same messages),
// then what could not be checked here.
int check_file(const std::string& file, const std::vector<std::string>& sets, const Config& config,
               PlanRunner& runner) {
    LoadedPlan loaded;
    const auto folders = payload_search_path(config);
    try {
        loaded = load_plan(file, sets, folders);
    } catch (const ScenarioError& e) {
        print_diagnostics(e, std::cerr);
        std::cerr << fmt::format("{}: {} error(s)\n", file, e.diagnostics().size());
        return exit_bad_input;
    }
    for (const auto& note : loaded.scenario.notes)
        std::cerr << file << ": note: " << terminal_safe(note) << "\n";
    print_plan(loaded.scenario, loaded.plan, runner);
    print_payloads(loaded.scenario, folders);
    for (const auto& w : runner.unchecked(loaded.plan))
        std::cerr << file << ": warning: " << terminal_safe(w) << "\n";
    const auto problems = runner.preflight(loaded.plan);
    for (const auto& p : problems) std::cerr << file << ": " << terminal_safe(p) << "\n";
    if (problems.empty()) return exit_ok;
    std::cerr << fmt::format("{}: {} problem(s) on this machine: `xferlab run` would refuse it\n",
                             file, problems.size());
    return exit_bad_input;
}

}  // namespace

CLI::App* add_check_command(CLI::App& app, CheckOptions& options) {
    auto* cmd = app.add_subcommand("check", "Validate scenario files and print the expanded plan");
    cmd->add_option("files", options.files, "Scenario files (TOML)")
        ->required()
        ->type_name("FILE.toml");
    add_set_option(cmd, options.sets, "Override a scenario key (repeatable)");
    add_trials_option(cmd, options.trials);
    add_common_options(cmd, options.common);
    return cmd;
}

int cmd_check(const CheckOptions& options) {
    std::vector<std::string> sets = options.sets;
    if (options.trials > 0) sets.push_back("scenario.trials=" + std::to_string(options.trials));
    auto config = load_config_or_report(options.common);
    if (!config) return exit_bad_input;
    // The runner `run` uses, so that `check` judges a plan with the very same preflight. It
    // never runs anything here.
    const LauncherRegistry registry = make_launcher_registry();
    std::atomic<bool> never_stopped{false};
    PlanRunner runner(registry, plan_options(*config), never_stopped);
    int code = exit_ok;
    for (const auto& file : options.files)
        code = std::max(code, check_file(file, sets, *config, runner));
    return code;
}

}  // namespace xfer
