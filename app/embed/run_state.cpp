#include "embed/run_state.hpp"

#include <chrono>
#include <stdexcept>
#include <thread>

#include "util/clock.hpp"

namespace xfer {
namespace {

std::atomic<uint64_t> g_next_run_id{1};

}  // namespace

RunState::RunState(RunContext& ctx, std::filesystem::path payload_file, std::string label,
                   std::vector<Worker*> workers, std::shared_ptr<CopySources> sources)
    : id(g_next_run_id.fetch_add(1)),
      run(ctx.run),
      payload_path(std::move(payload_file)),
      thread_label(std::move(label)),
      workers_(std::move(workers)),
      gate_(&ctx.gate),
      external_stop_(&ctx.stop),
      sources_(sources ? std::move(sources) : std::make_shared<CopySources>()) {
    if (workers_.empty())
        for (auto& w : ctx.workers) workers_.push_back(w.get());
    entered_ = std::make_unique<std::atomic<bool>[]>(workers_.size());
    owner_names_.resize(workers_.size());
}

std::string RunState::owner_name(int i) const {
    std::lock_guard lock(mutex_);
    return owner_names_[size_t(i)];
}

void RunState::set_owner_name(int i, std::string name) {
    std::lock_guard lock(mutex_);
    owner_names_[size_t(i)] = std::move(name);
}

void RunState::skip(std::string reason) {
    std::lock_guard lock(mutex_);
    if (skip_reason_.empty()) skip_reason_ = std::move(reason);
}

std::string RunState::skip_reason() const {
    std::lock_guard lock(mutex_);
    return skip_reason_;
}

std::map<int, std::string> RunState::verified() const {
    std::lock_guard lock(mutex_);
    return verified_;
}

std::vector<std::string> RunState::verification_failures() const {
    std::lock_guard lock(mutex_);
    return failed_checks_;
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

uint16_t CopySources::number(const std::string& label) {
    std::lock_guard lock(mutex_);
    for (size_t i = 0; i < labels_.size(); ++i)
        if (labels_[i] == label) return uint16_t(i + 1);
    if (labels_.size() >= 1000)
        throw std::length_error("w.timed(): more than 1000 distinct labels in one run");
    labels_.push_back(label);
    return uint16_t(labels_.size());
}

std::vector<std::string> CopySources::labels() const {
    std::lock_guard lock(mutex_);
    return labels_;
}

void RunState::set_verified(int global, bool ok, std::string how) {
    std::lock_guard lock(mutex_);
    if (ok) {
        verified_[global] = std::move(how);
        return;
    }
    verified_.erase(global);
    failed_checks_.push_back("verification failed: worker " + std::to_string(global) +
                             ", the payload's own check (" + how +
                             ") says its bytes did not arrive");
}

}  // namespace xfer
