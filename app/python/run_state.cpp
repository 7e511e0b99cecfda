#include "python/run_state.hpp"

#include <chrono>
#include <stdexcept>
#include <thread>

#include "util/clock.hpp"

namespace xfer {
namespace {

std::atomic<uint64_t> g_next_run_id{1};

}  // namespace

RunState::RunState(RunContext& ctx, std::filesystem::path payload_file)
    : id(g_next_run_id.fetch_add(1)),
      run(ctx.run),
      payload_path(std::move(payload_file)),
      entered_(ctx.workers.size(), 0),
      owner_names_(ctx.workers.size()),
      gate_(&ctx.gate),
      external_stop_(&ctx.stop) {
    for (auto& w : ctx.workers) workers_.push_back(w.get());
}

void RunState::wait_no_calls_in_flight() const {
    // Calls in flight finish their current copy (the stop flag is set before this wait).
    while (in_flight.load() != 0) std::this_thread::sleep_for(std::chrono::microseconds(200));
}

void RunState::main_finished(std::string traceback, bool stopped) {
    std::lock_guard lock(mutex_);
    main_done_ = true;
    main_stopped_ = stopped;
    main_traceback_ = std::move(traceback);
    cv_.notify_all();
}

bool RunState::wait_main(int64_t deadline_ns, bool until_stop) {
    std::unique_lock lock(mutex_);
    // Short slices: SIGINT sets an atomic that nobody notifies us about.
    constexpr auto slice = std::chrono::milliseconds(20);
    while (!main_done_) {
        if (until_stop && stop_requested()) return false;
        if (deadline_ns > 0) {
            const int64_t left = deadline_ns - now_ns();
            if (left <= 0) return false;
            cv_.wait_for(lock,
                         std::min<std::chrono::nanoseconds>(slice, std::chrono::nanoseconds(left)));
        } else {
            cv_.wait_for(lock, slice);
        }
    }
    return true;
}

bool RunState::main_done() {
    std::lock_guard lock(mutex_);
    return main_done_;
}

std::string RunState::main_traceback() {
    std::lock_guard lock(mutex_);
    return main_traceback_;
}

bool RunState::main_stopped() {
    std::lock_guard lock(mutex_);
    return main_stopped_;
}

void RunState::add_thread_error(ThreadError e) {
    std::lock_guard lock(mutex_);
    thread_errors_.push_back(std::move(e));
}

std::vector<ThreadError> RunState::thread_errors() {
    std::lock_guard lock(mutex_);
    return thread_errors_;
}

void RunState::add_note(std::string note) {
    std::lock_guard lock(mutex_);
    notes_.push_back(std::move(note));
}

std::vector<std::string> RunState::notes() {
    std::lock_guard lock(mutex_);
    return notes_;
}

uint16_t RunState::copy_source(const std::string& label) {
    for (size_t i = 0; i < copy_sources_.size(); ++i)
        if (copy_sources_[i] == label) return uint16_t(i + 1);
    if (copy_sources_.size() >= 1000)
        throw std::length_error("w.timed(): more than 1000 distinct labels in one run");
    copy_sources_.push_back(label);
    return uint16_t(copy_sources_.size());
}

void RunState::set_verified(int global, bool ok, std::string how) {
    if (ok) {
        verified_[global] = std::move(how);
        return;
    }
    verified_.erase(global);
    failed_checks_.push_back("verification failed: worker " + std::to_string(global) +
                             ", the payload's own check (" + how +
                             ") says its bytes did not arrive");
}

std::shared_ptr<RunState>& current_run() {
    static std::shared_ptr<RunState> run;
    return run;
}

}  // namespace xfer
