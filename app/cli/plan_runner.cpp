#include "cli/plan_runner.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <stdexcept>

#include "cli/context_skip.hpp"
#include "cli/machine_limits.hpp"
#include "launch/worker_set.hpp"
#include "memory/host_buffer.hpp"
#include "python/python.hpp"
#include "scenario/loader.hpp"
#include "scenario/units.hpp"
#include "util/clock.hpp"

namespace xfer {

std::string describe_memory_need(const Backend::Need& need) {
    std::string s = format_size(need.host_bytes) + " host";
    if (need.device_bytes) s += " + " + format_size(need.device_bytes) + " device";
    return s;
}

PlanRunner::PlanRunner(const LauncherRegistry& launchers, PlanOptions options,
                       std::atomic<bool>& stop)
    : launchers_(launchers), options_(std::move(options)), stop_(stop) {}

std::string PlanRunner::resolve_backend_name(const Run& run) const {
    return run.backend == "auto" ? options_.config_backend : run.backend;
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

std::vector<std::string> PlanRunner::preflight(const std::vector<Run>& plan) {
    std::vector<std::string> problems;
    uint64_t peak_host = 0;
    const ThreadLimit threads = thread_limit();
    for (const Run& run : plan) {
        const std::string where = fmt::format("run {} ({})", run.index, run.label);
        // Refused here rather than failing half-way through starting the workers.
        if (threads.max_threads > 0 && run.threads.count > threads.max_threads) {
            problems.push_back(fmt::format(
                "{}: threads.count = {} is more than this machine lets xferlab start: at most {} "
                "({})",
                where, run.threads.count, threads.max_threads, threads.reason));
        }
        if (!launchers_.make(run.spec.launcher)) {
            problems.push_back(fmt::format("{}: launcher '{}' is not available in this build",
                                           where, run.spec.launcher));
            continue;
        }
        try {
            Backend& backend = backend_for(run, nullptr);
            if (!context_skip_reason(run, backend).empty()) continue;
            backend.check(run.transfer, run.threads.count);
            peak_host = std::max(peak_host,
                                 backend.memory_needed(run.transfer, run.threads.count).host_bytes);
        } catch (const std::exception& e) {
            problems.push_back(fmt::format("{}: {}", where, e.what()));
        }
    }
    // Runs execute one after another and release their buffers: the peak is the largest run.
    const uint64_t available = available_host_memory();
    const uint64_t total = total_host_memory();
    if (total > 0 && peak_host > total) {
        problems.push_back(fmt::format(
            "the largest run needs {} of host memory, more than this machine has ({} in all); "
            "lower transfer.bytes or threads.count",
            format_size(peak_host), format_size(total)));
    } else if (peak_host > available) {
        problems.push_back(
            fmt::format("the largest run needs {} of host memory but only {} is available; lower "
                        "transfer.bytes or threads.count",
                        format_size(peak_host), format_size(available)));
    }
    return problems;
}

Run PlanRunner::apply_mimic(const Run& run, std::vector<std::string>& notes) {
    Run out = run;
    if (run.spec.mimic != "python") return out;
    ThreadInfo py = python_thread_info(options_.payload_dir);
    out.threads.stack_size = py.stack_size;
    out.threads.guard_size = py.guard_size;
    out.threads.signal_mask.kind = SignalMaskKind::list;
    out.threads.signal_mask.signals = py.blocked_signals;
    out.threads.affinity.kind = AffinityKind::list;
    out.threads.affinity.cpus = py.cpus;
    notes.push_back(fmt::format(
        "mimic python: stack {} guard {}, {} blocked signals, {} CPUs, as a Python thread has",
        format_size(py.stack_size), format_size(py.guard_size), py.blocked_signals.size(),
        py.cpus.size()));
    return out;
}

namespace {

// Whole-run failure before any worker ran: the result says why and holds no records.
RunResult failed_before_start(RunResult result, const std::string& why) {
    result.status = RunStatus::failed;
    result.errors.push_back(why);
    return result;
}

}  // namespace

RunResult PlanRunner::run(const Run& plan_run) {
    RunResult result;
    result.index = plan_run.index;
    result.label = plan_run.label;
    result.launcher = plan_run.spec.launcher;
    result.threads = plan_run.threads.count;
    result.bytes_per_copy = plan_run.transfer.bytes;
    result.direction = to_string(plan_run.transfer.direction);
    result.host_memory = to_string(plan_run.transfer.host_memory);
    result.sweep_point = plan_run.sweep_point;
    result.scaling_key = plan_run.scaling_key;
    result.start_ns = now_ns();

    Run run;
    try {
        run = apply_mimic(plan_run, result.notes);
    } catch (const std::exception& e) {
        return failed_before_start(std::move(result), std::string("mimic python: ") + e.what());
    }
    result.settings = to_json(run);
    if (run.timeout_ns == 0) run.timeout_ns = options_.default_timeout_ns;

    Backend* backend = nullptr;
    try {
        std::string note;
        backend = &backend_for(run, &note);
        result.backend = backend->name();
        if (!note.empty()) result.notes.push_back(note);
        if (std::string why = context_skip_reason(run, *backend);
            !why.empty()) {
            result.status = RunStatus::skipped;
            result.notes.push_back("skipped: " + why);
            result.end_ns = now_ns();
            return result;
        }
        backend->check(run.transfer, run.threads.count);
    } catch (const std::exception& e) {
        return failed_before_start(std::move(result), e.what());
    }
    auto launcher = launchers_.make(run.spec.launcher);
    if (!launcher) {
        return failed_before_start(std::move(result),
                                   "launcher '" + run.spec.launcher + "' is not available");
    }
    if (std::string why = launcher->unavailable_reason(); !why.empty()) {
        result.status = RunStatus::skipped;
        result.notes.push_back("launcher " + run.spec.launcher + " skipped: " + why);
        result.end_ns = now_ns();
        return result;
    }

    // Allocation and first touch (per policy): never timed. Workers in other processes
    // prepare their own.
    const bool elsewhere = launcher->workers_elsewhere();
    std::vector<std::unique_ptr<Worker>> workers;
    try {
        std::vector<int> all(size_t(elsewhere ? 0 : run.threads.count));
        std::iota(all.begin(), all.end(), 0);
        workers = prepare_workers(*backend, run, all);
    } catch (const std::exception& e) {
        return failed_before_start(std::move(result), e.what());
    }

    StartGate gate(run.threads.count, run.threads.start);
    RunContext ctx{run, *backend, workers, gate, stop_, options_.payload_dir, {}, {}, {}, {}};
    try {
        if (!elsewhere) backend->begin_run(run.transfer);
        launcher->launch(ctx);
    } catch (const std::exception& e) {
        ctx.errors.push_back(std::string("launcher failed: ") + e.what());
    }

    for (auto& w : workers) {
        result.records.insert(result.records.end(), w->records().begin(), w->records().end());
        result.threads_info.push_back(w->thread_info());
    }
    result.records.insert(result.records.end(), ctx.remote_records.begin(),
                          ctx.remote_records.end());
    result.threads_info.insert(result.threads_info.end(), ctx.remote_threads.begin(),
                               ctx.remote_threads.end());
    if (!elsewhere) end_backend_run(*backend, result.records, ctx.notes);
    result.end_ns = now_ns();
    result.errors.insert(result.errors.end(), ctx.errors.begin(), ctx.errors.end());
    result.notes.insert(result.notes.end(), ctx.notes.begin(), ctx.notes.end());
    if (!result.errors.empty()) result.status = RunStatus::failed;
    if (run.transfer.verify) {
        for (auto& failure : verification_failures(workers)) {
            result.status = RunStatus::failed;
            result.errors.push_back(std::move(failure));
        }
    }
    if (stop_.load() && result.status == RunStatus::ok) result.status = RunStatus::interrupted;
    return result;
}

nlohmann::json PlanRunner::devices() const {
    nlohmann::json out = nlohmann::json::object();
    for (const auto& [name, backend] : backends_) out[name] = backend->describe();
    return out;
}

}  // namespace xfer
