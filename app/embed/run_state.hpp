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

// w.timed() labels in the order first used, numbered from 1 (Record::source): one table per
// run, shared by the interpreters of a run that has several (launcher python-subinterp), so
// that their records need no renumbering. Any thread.
class CopySources {
  public:
    // Throws std::length_error past 1000 distinct labels.
    uint16_t number(const std::string& label);
    std::vector<std::string> labels() const;

  private:
    mutable std::mutex mutex_;
    std::vector<std::string> labels_;
};

class RunState {
  public:
    // The workers `workers` of `ctx` (empty: all of ctx.workers), driven by one interpreter;
    // the run's gate and stop flag are ctx's. `payload_file`: the payload as find_payload
    // resolved it. `thread_label`: ThreadInfo::launcher of the threads that enter the workers.
    // `sources`: the run's label table when several interpreters share it (null: a new one).
    RunState(RunContext& ctx, std::filesystem::path payload_file,
             std::string thread_label = "python", std::vector<Worker*> workers = {},
             std::shared_ptr<CopySources> sources = nullptr);

    const uint64_t id;  // distinct for every run in the process
    const Run run;      // a copy: readable after the run is closed
    const std::filesystem::path payload_path;
    const std::string thread_label;

    // --- Called from payload threads. With a GIL they take turns; in a free-threaded build
    // they run at once, so what several threads share is atomic or behind mutex_. ---
    // False once the run is over (later payload calls raise xferlab.Stopped). A call reads it
    // only after counting itself in flight (InFlight): close() then waits for it.
    bool open() const { return open_.load(); }
    Worker& worker(int i) { return *workers_[size_t(i)]; }
    int worker_count() const { return int(workers_.size()); }
    StartGate& gate() { return *gate_; }
    bool entered(int i) const { return entered_[size_t(i)].load(); }
    void set_entered(int i, bool v) { entered_[size_t(i)].store(v); }
    // The Python name of the thread that entered worker i ("" before it was entered): for the
    // message when another thread copies for it.
    std::string owner_name(int i) const;
    void set_owner_name(int i, std::string name);
    // Marks the run over: later payload calls raise xferlab.Stopped.
    void close() { open_.store(false); }
    // w.timed() labels (Record::source), numbered from 1 in the order first used.
    uint16_t copy_source(const std::string& label) { return sources_->number(label); }
    std::vector<std::string> copy_sources() const { return sources_->labels(); }
    // w.verified(ok, how): the payload's own check of worker `global` (its index in the run).
    void set_verified(int global, bool ok, std::string how);
    std::map<int, std::string> verified() const;
    std::vector<std::string> verification_failures() const;
    // ctx.skip(reason): the first reason wins.
    void skip(std::string reason);
    std::string skip_reason() const;
    // Whether the interpreter running the payload has a GIL: false for a free-threaded build
    // whose GIL is off (sys._is_gil_enabled()), read when the run starts. Without one, a
    // worker's ThreadInfo::gil_held stays unset ("no GIL", not "released") and ctx.gil says
    // "none".
    bool interpreter_has_gil() const { return has_gil_.load(); }
    void set_interpreter_has_gil(bool has) { has_gil_.store(has); }

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

    // Native calls that use a worker or the gate count themselves here before they read
    // open(); the launcher waits for zero after close() and before its RunContext goes away.
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
    std::unique_ptr<std::atomic<bool>[]> entered_;
    StartGate* gate_;
    const std::atomic<bool>* external_stop_;  // RunContext::stop, alive until launch() returns
    std::atomic<bool> open_{true};
    std::atomic<bool> has_gil_{true};
    std::atomic<bool> stop_{false};
    std::shared_ptr<CopySources> sources_;

    mutable std::mutex mutex_;  // everything below
    std::condition_variable cv_;
    std::vector<std::string> owner_names_;
    std::map<int, std::string> verified_;
    std::vector<std::string> failed_checks_;
    std::string skip_reason_;
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

}  // namespace xfer
