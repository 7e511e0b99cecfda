#pragma once
// Runs the plan one run at a time: preflight, prepare buffers (never timed), launch, collect.
#include <atomic>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backend/backend.hpp"
#include "launch/launcher.hpp"
#include "results/run_result.hpp"
#include "run/sizing/memory_preflight.hpp"
#include "scenario/scenario.hpp"
#include "system/stray_threads.hpp"

namespace xfer {

struct PlanOptions {
    std::string config_backend = "auto";              // what a scenario's "auto" resolves through
    std::vector<std::filesystem::path> payload_dirs;  // search order; the default last
    int64_t default_timeout_ns = 0;
};

struct Config;
// The plan runner's settings from the config: the same for `run` and `check`.
PlanOptions plan_options(const Config& config);

class PlanRunner {
  public:
    PlanRunner(const LauncherRegistry& launchers, PlanOptions options, std::atomic<bool>& stop);

    // Checks every run before anything is allocated: backend available, transfer possible on
    // it, launcher known, memory enough. Returns one message per problem (empty: all good).
    std::vector<std::string> preflight(const std::vector<Run>& plan);

    // What the preflight could not judge on this machine, one line each: the device checks when
    // backend "auto" falls back to host here, runs `run` would skip here. `check` prints them.
    std::vector<std::string> unchecked(const std::vector<Run>& plan);

    // What `run` says once before a plan whose backend "auto" falls back to host here: the
    // fallback, and how many runs it skips for needing CUDA; "" when no run falls back.
    std::string fallback_summary(const std::vector<Run>& plan);

    // Why `run` skips `run` here, as the backend the run resolves to says (Backend::can_run: a
    // setting only cuda can run, where backend "auto" fell back to host); "" when it runs, or
    // when its backend is unavailable (a preflight error).
    std::string backend_skip_reason(const Run& run);

    // Host memory of the plan's largest run, as its backends count it (runs whose launcher
    // or backend is unavailable count nothing: the preflight reports them).
    PlanMemory memory_needed(const std::vector<Run>& plan);

    // One run's memory as its backend counts it; nothing when the backend is unavailable, and
    // none for a run `run` skips here (backend_skip_reason): it allocates nothing.
    std::optional<Backend::Need> run_need(const Run& run);

    // Runs one run to completion. Never throws for a failure of the run itself: the result
    // carries status and errors.
    RunResult run(const Run& run);

    // Devices of every backend used so far, for results.json.
    nlohmann::json devices() const;

  private:
    Backend& backend_for(const Run& run, std::string* note);
    // The run's backend and its fallback note (`skip`: why `run` skips the run here, "" for
    // none); nullptr when the backend is unavailable (the preflight's error to report).
    const Backend* usable_backend(const Run& run, std::string& note, std::string& skip);
    std::string resolve_backend_name(const Run& run) const;
    Run apply_mimic(const Run& run, std::vector<std::string>& notes);

    const LauncherRegistry& launchers_;
    PlanOptions options_;
    std::atomic<bool>& stop_;
    std::map<std::string, std::unique_ptr<Backend>> backends_;
    std::map<std::string, std::string> backend_notes_;

    // What runs left that nobody named, watched until it is found busy between two runs
    // (system/stray_threads.hpp).
    UnnamedWork unnamed_work_;
};

// The workers' memory need of a run on `backend`, checked against free memory.
std::string describe_memory_need(const Backend::Need& need);

}  // namespace xfer
