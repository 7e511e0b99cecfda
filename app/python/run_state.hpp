#pragma once
// What the payload API's Context and Worker objects share with the launcher running the
// payload. Python objects may outlive their run (a payload can keep them; a thread can be left
// running): they hold this state through a shared_ptr, and the launcher closes it before it
// returns, so that a late call raises xferlab.Stopped instead of touching freed workers.
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "launch/copy_loop.hpp"
#include "launch/launcher.hpp"

namespace xfer {

struct ThreadError {
    std::string thread;     // threading.Thread.name
    std::string traceback;  // formatted by the traceback module
    bool stopped = false;   // the exception was xferlab.Stopped
};

class RunState {
  public:
    // `payload_file`: the payload as find_payload resolved it.
    RunState(RunContext& ctx, std::filesystem::path payload_file);

    const uint64_t id;  // distinct for every run in the process
    const Run run;      // a copy: readable after the run is closed
    const std::filesystem::path payload_path;

    // --- Used with the GIL held (the GIL orders these against close()). ---
    bool open() const { return open_; }
    Worker& worker(int i) { return *workers_[size_t(i)]; }
    int worker_count() const { return int(workers_.size()); }
    StartGate& gate() { return *gate_; }
    bool entered(int i) const { return entered_[size_t(i)] != 0; }
    void set_entered(int i, bool v) { entered_[size_t(i)] = v ? 1 : 0; }
    // The Python name of the thread that entered worker i ("" before it was entered): for the
    // message when another thread copies for it.
    const std::string& owner_name(int i) const { return owner_names_[size_t(i)]; }
    void set_owner_name(int i, std::string name) { owner_names_[size_t(i)] = std::move(name); }
    // Marks the run over: later payload calls raise xferlab.Stopped.
    void close() { open_ = false; }
    // w.timed() labels, numbered from 1 in the order first used (Record::source).
    uint16_t copy_source(const std::string& label);
    const std::vector<std::string>& copy_sources() const { return copy_sources_; }
    // w.verified(ok, how): the payload's own check of worker `global` (its index in the run).
    void set_verified(int global, bool ok, std::string how);
    const std::map<int, std::string>& verified() const { return verified_; }
    const std::vector<std::string>& verification_failures() const { return failed_checks_; }
    // ctx.skip(reason): the first reason wins.
    void skip(std::string reason) {
        if (skip_reason_.empty()) skip_reason_ = std::move(reason);
    }
    const std::string& skip_reason() const { return skip_reason_; }

    // --- Any thread, GIL or not. ---
    // The run's timeout passed, or xferlab was interrupted (SIGINT).
    bool stop_requested() const noexcept {
        return stop_.load(std::memory_order_relaxed) ||
               external_stop_->load(std::memory_order_relaxed);
    }
    // The same, as the copy loop checks it.
    StopCondition stop_condition() const noexcept { return {&stop_, external_stop_}; }
    bool stopped_by_xferlab() const noexcept { return stop_.load(std::memory_order_relaxed); }
    bool interrupted() const noexcept { return external_stop_->load(std::memory_order_relaxed); }
    void request_stop() noexcept { stop_.store(true); }

    // Native calls that use a worker or the gate with the GIL released count themselves here;
    // the launcher waits for zero after close() and before its RunContext goes away.
    std::atomic<int> in_flight{0};
    void wait_no_calls_in_flight() const;

    // main(ctx) ended (on the xferlab-main thread).
    void main_finished(std::string traceback, bool stopped);
    // Waits until main(ctx) ended or `deadline_ns` (host clock; <= 0: none) passed, and, with
    // `until_stop`, until a stop is requested (SIGINT is polled). True when main ended.
    bool wait_main(int64_t deadline_ns, bool until_stop);
    bool main_done();
    std::string main_traceback();
    bool main_stopped();

    void add_thread_error(ThreadError e);
    std::vector<ThreadError> thread_errors();
    void add_note(std::string note);
    std::vector<std::string> notes();

  private:
    std::vector<Worker*> workers_;
    std::vector<uint8_t> entered_;
    std::vector<std::string> owner_names_;
    StartGate* gate_;
    const std::atomic<bool>* external_stop_;  // RunContext::stop, alive until launch() returns
    bool open_ = true;
    std::atomic<bool> stop_{false};
    std::vector<std::string> copy_sources_;
    std::map<int, std::string> verified_;
    std::vector<std::string> failed_checks_;
    std::string skip_reason_;

    std::mutex mutex_;
    std::condition_variable cv_;
    bool main_done_ = false;
    bool main_stopped_ = false;
    std::string main_traceback_;
    std::vector<ThreadError> thread_errors_;
    std::vector<std::string> notes_;
};

// Counts one native call in flight for the scope.
class InFlight {
  public:
    explicit InFlight(RunState& state) : state_(state) { state_.in_flight.fetch_add(1); }
    ~InFlight() { state_.in_flight.fetch_sub(1); }
    InFlight(const InFlight&) = delete;
    InFlight& operator=(const InFlight&) = delete;

  private:
    RunState& state_;
};

// The run the python launcher is executing now (null between runs). GIL-protected.
std::shared_ptr<RunState>& current_run();

}  // namespace xfer
