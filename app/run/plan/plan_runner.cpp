#include "run/plan/plan_runner.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <numeric>
#include <stdexcept>
#include <thread>

#include "embed/python.hpp"
#include "launch/execute_workers.hpp"
#include "report/analysis/run_stats.hpp"
#include "run/config.hpp"
#include "run/plan/run_header.hpp"
#include "run/plan/skip_note.hpp"
#include "run/sizing/memory_preflight.hpp"
#include "scenario/loader.hpp"
#include "scenario/payload_files.hpp"
#include "settings/vocabulary.hpp"
#include "system/cpu_activity.hpp"
#include "system/limits.hpp"
#include "system/memory_limits.hpp"
#include "system/process_work.hpp"
#include "system/stray_threads.hpp"
#include "util/clock.hpp"
#include "util/format.hpp"

namespace xfer {

PlanOptions plan_options(const Config& config) {
    return PlanOptions{config.backend, payload_search_path(config), config.timeout_ns};
}

std::string describe_memory_need(const Backend::Need& need) {
    std::string s = format_size(need.host_bytes) + " host";
    if (need.device_bytes) s += " + " + format_size(need.device_bytes) + " device";
    return s;
}

PlanRunner::PlanRunner(const LauncherRegistry& launchers, PlanOptions options,
                       std::atomic<bool>& stop)
    : launchers_(launchers), options_(std::move(options)), stop_(stop) {}

std::string PlanRunner::resolve_backend_name(const Run& run) const {
    return run.settings.backend == "auto" ? options_.config_backend : run.settings.backend;
}

Backend& PlanRunner::backend_for(const Run& run, std::string* note) {
    std::string name = resolve_backend_name(run);
    auto it = backends_.find(name);
    if (it == backends_.end()) {
        std::string fallback;
        auto backend = make_backend(name, &fallback);  // throws with the reason
        backend_notes_[name] = fallback;
        it = backends_.emplace(name, std::move(backend)).first;
    }
    if (note) *note = backend_notes_[name];
    return *it->second;
}

const Backend* PlanRunner::usable_backend(const Run& run, std::string& note, std::string& skip) {
    try {
        const Backend& backend = backend_for(run, &note);  // note not empty: "auto" fell back
        const RunHere here = backend.can_run(run.settings.transfer, run.settings.threads.count);
        skip = here.skipped() ? here.reason : "";
        return &backend;
    } catch (const std::exception&) {
        return nullptr;
    }
}

std::string PlanRunner::backend_skip_reason(const Run& run) {
    std::string note, skip;
    usable_backend(run, note, skip);
    return skip;  // "" also for an unavailable backend: the preflight's error
}

namespace {

// Runs refused because their backend cannot run here, by backend: said once for all of them.
struct UnavailableBackend {
    std::string reason;
    size_t runs = 0;
};

std::string unavailable_problem(const std::string& backend, const UnavailableBackend& u,
                                size_t plan_runs) {
    const std::string who = plan_runs == 1 ? "the run needs it"
                            : u.runs == plan_runs
                                ? fmt::format("all {} runs need it", u.runs)
                                : fmt::format("{} of {} runs need it", u.runs, plan_runs);
    return fmt::format("backend {} is unavailable here ({}): {}", backend, u.reason, who);
}

}  // namespace

std::vector<std::string> PlanRunner::preflight(const std::vector<Run>& plan) {
    std::vector<std::string> problems;
    std::map<std::string, UnavailableBackend> unavailable;
    const ThreadLimit threads = thread_limit();
    for (const Run& run : plan) {
        const std::string where =
            fmt::format("run {} ({})", run.position.index, run.position.label);
        // Refused here rather than failing half-way through starting the workers.
        if (threads.max_threads > 0 && run.settings.threads.count > threads.max_threads) {
            problems.push_back(fmt::format(
                "{}: threads.count = {} is more than this machine lets xferlab start: at most {} "
                "({})",
                where, run.settings.threads.count, threads.max_threads, threads.reason));
        }
        if (!launchers_.make(run.settings.launcher)) {
            problems.push_back(fmt::format("{}: launcher '{}' is not available in this build",
                                           where, run.settings.launcher));
            continue;
        }
        try {
            const RunHere here = backend_for(run, nullptr)
                                     .can_run(run.settings.transfer, run.settings.threads.count);
            if (here.refused())  // a skipped run is `run`'s to skip
                problems.push_back(fmt::format("{}: {}", where, here.reason));
        } catch (const BackendUnavailable& e) {
            unavailable[e.backend].reason = e.reason;
            ++unavailable[e.backend].runs;
        } catch (const std::exception& e) {
            problems.push_back(fmt::format("{}: {}", where, e.what()));
        }
    }
    // The same cause for every run it refuses: said once, first.
    for (const auto& [name, u] : unavailable)
        problems.insert(problems.begin(), unavailable_problem(name, u, plan.size()));
    if (auto why = memory_problem(memory_needed(plan), read_memory_budget()); !why.empty())
        problems.push_back(std::move(why));
    return problems;
}

std::vector<std::string> PlanRunner::unchecked(const std::vector<Run>& plan) {
    std::vector<std::string> out;
    bool fell_back = false;
    for (const Run& run : plan) {
        std::string note, skip;
        // An unavailable backend is the preflight's error, not a warning.
        if (!usable_backend(run, note, skip)) continue;
        if (!note.empty() && !fell_back) {  // "auto" chose host: the devices were not asked
            fell_back = true;
            for (const BackendAvailability& b : list_backends())
                if (!b.available)
                    out.push_back(fmt::format(
                        "{} is unavailable here ({}): device checks skipped; backend auto was "
                        "checked as host, which `run` uses here",
                        b.name, b.reason));
        }
        if (!skip.empty())
            out.push_back(fmt::format("run {} ({}): not checked: `run` skips it here: {}",
                                      run.position.index, run.position.label, skip));
    }
    return out;
}

std::string PlanRunner::fallback_summary(const std::vector<Run>& plan) {
    std::string fallback;
    size_t skipped = 0;
    for (const Run& run : plan) {
        std::string note, skip;
        if (!usable_backend(run, note, skip)) continue;  // the preflight refused it
        if (fallback.empty()) fallback = note;
        skipped += skip.empty() ? 0 : 1;
    }
    if (fallback.empty() || skipped == 0) return fallback;
    return fmt::format("{}; {} of {} runs need CUDA and are skipped", fallback, skipped,
                       plan.size());
}

std::optional<Backend::Need> PlanRunner::run_need(const Run& run) {
    if (!backend_skip_reason(run).empty()) return Backend::Need{};
    try {
        const LauncherDescriptor* launcher = find_launcher(run.settings.launcher);
        return backend_for(run, nullptr)
            .memory_needed(run.settings.transfer, run.settings.threads.count,
                           launcher && launcher->traits.process_per_worker);
    } catch (const std::exception&) {
        return std::nullopt;  // an unavailable backend: the preflight reports it
    }
}

PlanMemory PlanRunner::memory_needed(const std::vector<Run>& plan) {
    PlanMemory peak;
    for (const Run& run : plan) {
        const LauncherDescriptor* launcher = find_launcher(run.settings.launcher);
        if (!launcher) continue;  // the preflight says so
        if (auto need = run_need(run))
            add_run_need(peak, *need,
                         launcher->traits.process_per_worker ? run.settings.threads.count : 1);
    }
    return peak;
}

Run PlanRunner::apply_mimic(const Run& run, std::vector<std::string>& notes) {
    Run out = run;
    if (run.settings.mimic != Mimic::python) return out;
    ThreadInfo py = python_thread_info(
        options_.payload_dirs.empty() ? std::filesystem::path() : options_.payload_dirs.back());
    out.settings.threads.stack_size = py.stack_size;
    out.settings.threads.guard_size = py.guard_size;
    out.settings.threads.signal_mask.kind = SignalMaskKind::list;
    out.settings.threads.signal_mask.signals = py.blocked_signals;
    out.settings.threads.affinity.kind = AffinityKind::list;
    out.settings.threads.affinity.cpus = py.cpus;
    notes.push_back(fmt::format(
        "mimic python: stack {} guard {}, {} blocked signals, {} CPUs, as a Python thread has",
        format_size(py.stack_size), format_size(py.guard_size), py.blocked_signals.size(),
        py.cpus.size()));
    return out;
}

namespace {

// What the machine's CPUs did while the measured copies ran (the aggregate's window, from the
// first measured copy's start to the last one's end). Worker processes' CPU time is known only
// once they are reaped, at the end: their runs are watched whole.
std::optional<HostActivity> host_activity_of(const std::vector<CpuSample>& samples,
                                             const std::vector<Record>& records,
                                             bool workers_elsewhere) {
    if (samples.empty()) return std::nullopt;
    const auto window = measured_window(records);
    if (workers_elsewhere || !window) {
        return activity_over(samples, samples.front().t_ns, samples.back().t_ns, "run");
    }
    const auto [from, to] = *window;
    auto a = activity_over(samples, from, to, "copies");
    // The sampler runs at SCHED_IDLE: with every CPU busy it may have no sample near the
    // copies, and then what it vouches for is (nearly) the whole run.
    constexpr int64_t kSlackNs = 100'000'000;
    if (a && a->window_ns > (to - from) + kSlackNs) a->span = "run";
    return a;
}

// Whole-run failure before any worker ran: the result says why and holds no records.
RunResult failed_before_start(RunResult result, const std::string& why) {
    result.status = RunStatus::failed;
    result.errors.push_back(why);
    return result;
}

RunResult skipped_before_start(RunResult result, const std::string& why,
                               const std::string& subject = "") {
    result.status = RunStatus::skipped;
    add_skip_note(result, why, subject);
    result.end_ns = now_ns();
    return result;
}

// A run measured while threads left by earlier runs were alive: flagged (the trial verdicts
// read the flag) and said in its notes.
void note_strays(std::vector<StrayThreadSeen> strays, RunResult& result) {
    // A thread this run itself left behind is not one it was measured beside.
    std::erase_if(strays,
                  [&](const StrayThreadSeen& s) { return s.left_by_run == result.position.index; });
    if (strays.empty()) return;
    const bool processes = std::all_of(strays.begin(), strays.end(),
                                       [](const StrayThreadSeen& s) { return s.process; });
    const bool threads = std::none_of(strays.begin(), strays.end(),
                                      [](const StrayThreadSeen& s) { return s.process; });
    const std::string kind = threads ? "thread" : processes ? "child process" : "thread or process";
    result.notes.push_back(fmt::format(
        "measured while {} left running by an earlier run {} alive: {}; this run's figures may "
        "be skewed by {}, and the trial verdicts count it as suspect",
        strays.size() == 1 ? "a " + kind
                           : fmt::format("{} {}", strays.size(),
                                         threads     ? "threads"
                                         : processes ? "child processes"
                                                     : "threads and processes"),
        strays.size() == 1 ? "was" : "were", describe_strays(strays),
        strays.size() == 1 ? "it" : "them"));
    result.stray_threads = std::move(strays);
}

}  // namespace

RunResult PlanRunner::run(const Run& plan_run) {
    // Before the run's clock starts: the first gap after a run left work nobody named lasts
    // long enough to tell a spinning leftover from an idle one (UnnamedWork::short_by).
    if (const int64_t wait_ns = unnamed_work_.short_by(now_ns()); wait_ns > 0)
        std::this_thread::sleep_for(std::chrono::nanoseconds(wait_ns));
    RunResult result = run_result_header(plan_run);
    result.start_ns = now_ns();

    Run run;
    try {
        run = apply_mimic(plan_run, result.notes);
    } catch (const std::exception& e) {
        return failed_before_start(std::move(result), std::string("mimic python: ") + e.what());
    }
    result.settings = run.settings;  // mimic python's thread attributes included
    if (run.settings.timeout_ns == 0) run.settings.timeout_ns = options_.default_timeout_ns;

    // Resolved and hashed as the run starts: the result names the exact code that ran.
    std::filesystem::path payload_folder;
    if (!run.settings.payload.empty()) {
        std::string error;
        result.payload = record_payload(run.settings.payload, options_.payload_dirs, error);
        if (!result.payload) return failed_before_start(std::move(result), error);
        payload_folder = result.payload->folder;
    }

    Backend* backend = nullptr;
    try {
        std::string note;
        backend = &backend_for(run, &note);
        result.backend_used = backend->name();
        if (!note.empty()) result.notes.push_back(note);
    } catch (const std::exception& e) {
        return failed_before_start(std::move(result), e.what());
    }
    const RunHere on_backend = backend->can_run(run.settings.transfer, run.settings.threads.count);
    if (on_backend.skipped()) return skipped_before_start(std::move(result), on_backend.reason);
    if (on_backend.refused()) return failed_before_start(std::move(result), on_backend.reason);
    auto launcher = launchers_.make(run.settings.launcher);
    if (!launcher) {
        return failed_before_start(std::move(result),
                                   "launcher '" + run.settings.launcher + "' is not available");
    }
    if (const RunHere here = launcher->can_run(run); here.verdict != RunHere::Verdict::runs)
        return skipped_before_start(std::move(result), here.reason,
                                    "launcher " + run.settings.launcher);

    // Allocation and first touch (per policy) are never timed. Workers in other processes
    // prepare their own.
    std::vector<int> here(
        size_t(launcher->traits().workers_elsewhere ? 0 : run.settings.threads.count));
    std::iota(here.begin(), here.end(), 0);
    // Work the last run left that nobody named (a thread from _thread.start_new_thread, a
    // forked child) and that kept a CPU busy since is stray work from here on.
    const WorkSnapshot work_at_start = process_work_now();
    unnamed_work_.at_run_start(work_at_start);
    // Threads earlier runs left running, read at the start and the end: one alive between
    // them shared the machine with this run's copies (system/stray_threads.hpp).
    const std::vector<StrayThreadNow> strays_before = live_stray_threads();
    const int64_t measured_from = now_ns();
    HostActivitySampler activity;
    WorkersOutcome outcome =
        execute_workers({run, *backend, *launcher, here, payload_folder, stop_, {}});
    note_strays(strays_during(strays_before, live_stray_threads(), now_ns() - measured_from),
                result);
    result.host_activity =
        host_activity_of(activity.stop(), outcome.records, launcher->traits().workers_elsewhere);
    // What this run leaves, watched from the next run's start on.
    unnamed_work_.at_run_end(work_at_start, process_work_now(), run.position.index);
    if (!activity.thread_failure().empty())
        result.notes.push_back(
            "host activity was read at the run's start and end only, not around its copies: "
            "the thread that samples it could not start (" +
            activity.thread_failure() + ")");
    if (!outcome.started) return failed_before_start(std::move(result), outcome.errors.front());

    result.records = std::move(outcome.records);
    result.threads_info = std::move(outcome.threads);
    result.helper_threads = std::move(outcome.helper_threads);
    result.copy_sources = std::move(outcome.copy_sources);
    result.device_copies = std::move(outcome.device_copies);
    result.payload_verified = std::move(outcome.payload_verified);
    result.end_ns = outcome.collected_ns;
    result.errors.insert(result.errors.end(), outcome.errors.begin(), outcome.errors.end());
    result.notes.insert(result.notes.end(), outcome.notes.begin(), outcome.notes.end());
    if (!outcome.skipped.empty()) {
        add_skip_note(result, outcome.skipped);
        if (result.errors.empty()) result.status = RunStatus::skipped;
    }
    if (!result.errors.empty()) result.status = RunStatus::failed;
    if (stop_.load() && result.status == RunStatus::ok) result.status = RunStatus::interrupted;
    return result;
}

nlohmann::json PlanRunner::devices() const {
    nlohmann::json out = nlohmann::json::object();
    for (const auto& [name, backend] : backends_) out[name] = backend->describe();
    return out;
}

}  // namespace xfer
