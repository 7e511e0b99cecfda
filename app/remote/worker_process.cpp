// `xferlab worker` (hidden): the worker process of launchers "process" (one worker each),
// python-ft and python-subinterp (every worker of the run, in a sibling executable built against
// another interpreter, or in xferlab itself where its own can). Started by the parent with
// posix_spawn (never forked from a process that holds CUDA or Python state), it creates its own
// CUDA context, runs its workers with the run's thread settings, and sends back what they
// measured.
#include "remote/worker_process.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <csignal>
#include <iostream>

#include "backend/backend.hpp"
#include "embed/payload_output.hpp"
#include "embed/python.hpp"
#include "remote/local_workers.hpp"
#include "remote/record_stream.hpp"
#include "remote/worker_protocol.hpp"
#include "results/serialize.hpp"
#include "scenario/run_wire.hpp"
#include "system/stop_signal.hpp"
#include "util/frame.hpp"

namespace xfer {

namespace {

// The start barrier across processes: say "ready" once this process's worker waits at the
// gate, then open it on the parent's "go".
void coordinate_with_parent(StartGate& gate) {
    try {
        if (!gate.wait_until_arrived()) {
            send_to_parent(worker_message("aborted"));
            return;
        }
        send_to_parent(worker_message("ready"));
        auto reply = read_frame(kWorkerJobFd);
        if (reply && nlohmann::json::parse(*reply).at("type") == "go") {
            gate.release();
            return;
        }
    } catch (const std::exception&) {
        // The parent is gone or garbled: nobody to start with.
    }
    gate.abort();
}

}  // namespace

int run_worker_process() {
    // A worker outlives no parent; SIGINT/SIGTERM stop it after the current copy like a run.
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    std::signal(SIGPIPE, SIG_IGN);
    install_stop_handlers();
    unblock_stop_signals();  // blocked by the parent until the handlers were in place
    WorkerJob job;
    try {
        auto frame = read_frame(kWorkerJobFd);
        if (!frame) throw std::runtime_error("no job received");
        job = worker_job_from_json(nlohmann::json::parse(*frame));
    } catch (const std::exception& e) {
        std::cerr << "xferlab worker: " << e.what()
                  << " (this command is started by launchers \"process\", \"python-ft\" and "
                     "\"python-subinterp\", not by hand)\n";
        return 2;
    }
    // The parent's stdout carries its report: whatever this process prints (a payload's
    // print() is prefixed and copied to the log; native code writing to fd 1 is not) goes to
    // stderr.
    ::dup2(STDERR_FILENO, STDOUT_FILENO);
    set_payload_output_log(job.output_log);
    // A sibling executable embeds another interpreter: it starts its own, not the parent's.
    if (!job.python_executable.empty()) choose_python({job.python_executable, job.python_origin});
    std::unique_ptr<Backend> backend;
    try {
        backend = make_backend(job.backend);  // this process's own CUDA context
    } catch (const std::exception& e) {
        std::cerr << "xferlab worker " << fmt::format("{}", fmt::join(job.workers, ", "))
                  << ": backend " << job.backend << ": " << e.what() << "\n";
        return 1;
    }
    // The records go to the parent in batches while the worker copies, so that a kill loses
    // only the last ones.
    RecordStreamer streamer([](const std::string& frame) { send_to_parent(frame); });
    LocalOutcome outcome =
        run_local_workers(job.run, *backend, job.workers, job.payload_dir, stop_requested(),
                          "process", coordinate_with_parent, &streamer);
    nlohmann::json message = to_json(outcome);
    message["type"] = "result";
    try {
        send_to_parent(compact_json(message));
    } catch (const std::exception& e) {
        std::cerr << "xferlab worker " << fmt::format("{}", fmt::join(job.workers, ", "))
                  << ": cannot send results: " << e.what() << "\n";
        return 1;
    }
    std::cout.flush();
    // A payload that left a thread running cannot be finalized safely (as in `xferlab run`).
    if (python_threads_leaked()) _exit(0);
    return 0;
}

}  // namespace xfer
