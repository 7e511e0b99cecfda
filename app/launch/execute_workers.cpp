#include "launch/execute_workers.hpp"

#include <fmt/format.h>

#include <memory>
#include <set>
#include <optional>
#include <stdexcept>
#include <thread>

#include "backend/backend.hpp"
#include "util/clock.hpp"
#include "util/thread_start.hpp"
#include "util/units.hpp"

namespace xfer {
namespace {

// Allocation and first touch (per policy); destinations poisoned so that a copy that did not
// happen cannot verify.
std::vector<std::unique_ptr<Worker>> prepare_workers(Backend& backend, const Run& run,
                                                     const std::vector<int>& indices) {
    std::vector<std::unique_ptr<Worker>> workers;
    for (int i : indices) {
        try {
            auto transfer = backend.prepare(run.settings.transfer, i);
            transfer->poison_destination();
            workers.push_back(std::make_unique<Worker>(run.position.index, i, std::move(transfer),
                                                       run.settings.transfer.repetitions,
                                                       run.settings.transfer.warmup));
            workers.back()->probe_gaps(run.settings.threads.gap_stages,
                                       run.settings.threads.gap_counters);
        } catch (const std::exception& e) {
            throw std::runtime_error(
                fmt::format("preparing buffers for worker {} failed: {}", i, e.what()));
        }
    }
    return workers;
}

// Device timestamps joined into the outcome's records, and what else the backend's run left;
// a failure to get the timestamps is a note, not an error.
void end_backend_run(Backend& backend, WorkersOutcome& out, std::vector<std::string>& notes) {
    Backend::RunEnd end;
    try {
        end = backend.end_run(out.records);
    } catch (const std::exception& e) {
        end.failure = e.what();
    }
    for (auto& note : end.notes) notes.push_back(std::move(note));
    if (!end.failure.empty()) notes.push_back("device timestamps unavailable: " + end.failure);
    out.helper_threads = std::move(end.helper_threads);
    out.device_copies = std::move(end.device_copies);
}

// What the run's deadline stopped, as the run's error: how far the workers got.
std::string timeout_error(const RunDeadline& deadline, const Run& run,
                          const std::vector<std::unique_ptr<Worker>>& workers) {
    size_t made = 0;
    for (const auto& w : workers) made += w->records().size();
    const size_t planned =
        workers.size() * size_t(run.settings.transfer.warmup + run.settings.transfer.repetitions);
    // A worker process or rank holds a share of the run: which share it says.
    std::string whose;
    if (int(workers.size()) < run.settings.threads.count) {
        for (const auto& w : workers)
            whose += (whose.empty() ? "" : ", ") + std::to_string(w->index());
        whose = fmt::format(" by worker{} {}", workers.size() == 1 ? "" : "s", whose);
    }
    return fmt::format(
        "the run did not finish within its timeout ({}, scenario.timeout): xferlab stopped its "
        "workers after their current copy; {} of the {} planned copies were made{}",
        duration_text(deadline.timeout_ns()), made, planned, whose);
}

void launch_and_collect(const WorkersJob& job, std::vector<std::unique_ptr<Worker>>& workers,
                        StartGate& gate, WorkersOutcome& out) {
    const bool elsewhere = job.launcher.traits().workers_elsewhere;
    // From the launch on: allocation is not the run's (nor a payload launcher's) time.
    std::optional<RunDeadline> deadline;
    if (job.run.settings.timeout_ns > 0 && !job.launcher.enforces_timeout()) {
        deadline.emplace(job.run.settings.timeout_ns);
        gate.set_deadline(&*deadline);
    }
    // Designated: the collected fields start empty, whatever fields RunContext gains.
    RunContext ctx{.run = job.run,
                   .backend = job.backend,
                   .workers = workers,
                   .gate = gate,
                   .stop = job.stop,
                   .deadline = deadline ? &*deadline : nullptr,
                   .payload_dir = job.payload_dir};
    if (job.watcher) {
        std::vector<const Worker*> watched;
        for (auto& w : workers) watched.push_back(w.get());
        if (std::string why = job.watcher->start(std::move(watched)); !why.empty())
            ctx.notes.push_back(why);
    }
    try {
        if (!elsewhere) job.backend.begin_run(job.run.settings.transfer);
        job.launcher.launch(ctx);
    } catch (const std::exception& e) {
        ctx.errors.push_back(std::string("launcher failed: ") + e.what());
    }
    if (job.watcher) job.watcher->stop();
    // A launcher that never reached the gate must not leave a coordinator waiting.
    if (job.coordinate) gate.abort();
    std::set<std::string> unread_counters;  // said once, however many workers lack them
    for (auto& w : workers) {
        out.records.insert(out.records.end(), w->records().begin(), w->records().end());
        out.threads.push_back(w->thread_info());
        if (std::string why = w->counters_unavailable(); !why.empty())
            unread_counters.insert(std::move(why));
    }
    for (const std::string& why : unread_counters) ctx.notes.push_back("gap_counters: " + why);
    out.records.insert(out.records.end(), ctx.remote_records.begin(), ctx.remote_records.end());
    out.threads.insert(out.threads.end(), ctx.remote_threads.begin(), ctx.remote_threads.end());
    if (!elsewhere) {
        end_backend_run(job.backend, out, ctx.notes);
    }
    out.device_copies.insert(out.device_copies.end(), ctx.remote_device_copies.begin(),
                             ctx.remote_device_copies.end());
    out.copy_sources = std::move(ctx.copy_sources);
    out.payload_verified = std::move(ctx.payload_verified);
    out.skipped = std::move(ctx.skipped);
    out.helper_threads.insert(out.helper_threads.end(), ctx.remote_helper_threads.begin(),
                              ctx.remote_helper_threads.end());
    out.collected_ns = now_ns();
    if (deadline && deadline->expired() && !job.stop.load())
        ctx.errors.push_back(timeout_error(*deadline, job.run, workers));
    out.errors = std::move(ctx.errors);
    if (job.run.settings.transfer.verify)
        for (auto& w : workers)
            if (auto failure = verification_failure(*w)) out.errors.push_back(std::move(*failure));
    out.notes = std::move(ctx.notes);
}

}  // namespace

WorkersOutcome execute_workers(const WorkersJob& job) {
    WorkersOutcome out;
    std::vector<std::unique_ptr<Worker>> workers;
    try {
        workers = prepare_workers(job.backend, job.run, job.indices);
    } catch (const std::exception& e) {
        out.errors.push_back(e.what());
    }

    // Workers in other processes meet at their own gates; this one counts the whole run.
    const int parties = job.launcher.traits().workers_elsewhere ? job.run.settings.threads.count
                                                                : int(workers.size());
    StartGate gate(parties, job.run.settings.threads.start);
    std::thread coordinator;
    if (job.coordinate && gate.needs_coordination()) {
        gate.set_coordinated();
        std::string no_thread;
        coordinator = start_thread([&] { job.coordinate(gate); }, no_thread);
        if (!no_thread.empty())
            out.errors.push_back(
                "the thread that coordinates the workers' start could not start: " + no_thread);
        // Whatever happened above, the other processes wait for this one's word at the barrier.
        if (!out.errors.empty()) gate.abort();
    }
    if (out.errors.empty()) {
        out.started = true;
        launch_and_collect(job, workers, gate, out);
    }
    if (coordinator.joinable()) coordinator.join();
    return out;
}

}  // namespace xfer
