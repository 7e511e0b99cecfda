#pragma once
// The Launcher interface: who creates the worker threads (or processes) and drives the loop.
#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "backend/run_here.hpp"
#include "launch/run_deadline.hpp"
#include "launch/start_gate.hpp"
#include "launch/worker.hpp"
#include "results/helper_thread.hpp"
#include "scenario/scenario.hpp"
#include "settings/vocabulary.hpp"

namespace xfer {

class Backend;

struct RunContext {
    const Run& run;
    Backend& backend;
    std::vector<std::unique_ptr<Worker>>& workers;  // prepared: buffers allocated
    StartGate& gate;
    std::atomic<bool>& stop;  // set on SIGINT: finish the current copy, then stop
    // scenario.timeout, for launchers that do not enforce it themselves (null: none, or the
    // launcher does): every copy loop asks it (launch/run_deadline.hpp).
    const RunDeadline* deadline = nullptr;
    std::filesystem::path payload_dir{};
    std::vector<std::string> errors{};  // launcher failures (tracebacks, crashed workers)
    std::vector<std::string> notes{};
    // Filled by launchers whose workers run in other processes (process, mpi): what those
    // workers measured, already on this process's clock. `workers` is empty for them.
    std::vector<Record> remote_records{};
    std::vector<ThreadInfo> remote_threads{};
    std::vector<HelperThread> remote_helper_threads{};
    std::vector<DeviceCopy> remote_device_copies{};  // joined to timed blocks there
    // Filled by launchers that run payloads: the labels of the payload's w.timed() blocks
    // (Record::source - 1 indexes them), the workers whose bytes the payload checked itself
    // (worker -> how), and why the payload skipped the run (ctx.skip; "" when it did not).
    std::vector<std::string> copy_sources{};
    std::map<int, std::string> payload_verified{};
    std::string skipped{};
};

class Launcher {
  public:
    virtual ~Launcher() = default;
    virtual std::string name() const = 0;
    // Runs every worker to completion (or until ctx.stop). Failures go to ctx.errors; an
    // exception means the launcher itself could not start.
    virtual void launch(RunContext& ctx) = 0;
    // What the vocabulary says it does with a run (settings/vocabulary.hpp), e.g. whether its
    // workers run in other processes: the one place that says so. Only a launcher that is no
    // entry of the vocabulary (a worker process's own threads) says otherwise.
    virtual const LauncherTraits& traits() const;
    // Whether `run` can run with this launcher in this process as started: every requirement
    // of the launcher in one place (mpi needs mpirun; python-ft and python-subinterp an
    // executable with the interpreter they need). A run it cannot start is skipped with the
    // reason rather than failed. The backend answers the same question for the run's transfer
    // (Backend::can_run).
    virtual RunHere can_run(const Run& run) const {
        (void)run;
        return RunHere::runs();
    }
    // Whether it stops its workers at the run's timeout itself (the payload launchers: a
    // payload's threads are stopped by embed/payload_run.cpp, with its own grace and message).
    // Otherwise execute_workers gives the run a RunDeadline that its copy loops ask.
    virtual bool enforces_timeout() const { return false; }
};

// A worker failed: appends "worker <i>: <what>" to ctx.errors under `mutex` and aborts the
// start gate, so that the others are not left waiting.
void record_worker_failure(RunContext& ctx, std::mutex& mutex, int worker, const std::string& what);

using LauncherFactory = std::function<std::unique_ptr<Launcher>()>;

class LauncherRegistry {
  public:
    void add(const std::string& name, LauncherFactory factory);
    std::unique_ptr<Launcher> make(const std::string& name) const;  // nullptr when unknown
    std::vector<std::string> names() const;

  private:
    std::map<std::string, LauncherFactory> factories_;
};

}  // namespace xfer
