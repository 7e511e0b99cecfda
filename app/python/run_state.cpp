#include "python/run_state.hpp"

#include <chrono>
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

std::shared_ptr<RunState>& current_run() {
    static std::shared_ptr<RunState> run;
    return run;
}

}  // namespace xfer
