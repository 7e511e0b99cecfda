#pragma once
// The C++ side of the payload API (module.cpp binds it): a run's Context, its Workers, host
// buffers. Every method is called from Python, with the GIL held on entry (in a free-threaded
// build: attached, other threads calling at the same time). A method that touches a Worker or
// the gate counts itself in flight (InFlight) before it checks that the run is open, so that
// the launcher, which closes the run and then waits for the calls in flight, never frees them
// under it.
#include <pybind11/pybind11.h>

#include <memory>
#include <string>

#include "memory/host_buffer.hpp"
#include "embed/run_state.hpp"
#include "embed/timed_block.hpp"

namespace xfer {

// Raises xferlab.Stopped (of the calling thread's interpreter): a payload call once its run is
// stopped (timeout, SIGINT) or over.
[[noreturn]] void raise_stopped(const std::string& why);

// The GIL state seen inside the copy call, recorded once per worker into its ThreadInfo; left
// unset where the interpreter has no GIL (interpreter_has_gil false).
void observe_gil_during_copy(Worker& worker, bool interpreter_has_gil);

// Worker `index` of `state` is used by `call` ("w.copy()") from the thread that entered it, or
// not entered yet. Otherwise raises RuntimeError naming the worker and both threads: a copy
// from another thread would be recorded with the owner's tid, a wrong measurement.
void require_owner_thread(RunState& state, int index, const char* call);

class PayloadWorker {
  public:
    PayloadWorker(std::shared_ptr<RunState> state, int index);

    // `count` copies through Worker::copy_once without returning to Python in between
    // (threads.between applied between them, as the host loop does). GIL per the run.
    void copy(int count);
    void enter();
    void barrier();
    // `with w.timed(nbytes, label):` a copy the payload makes itself, as one record.
    PayloadTimedBlock timed(const pybind11::object& nbytes, const pybind11::object& label);
    // The payload's own check of the bytes its timed blocks moved.
    void verified(bool ok, const std::string& how);
    int device() const;
    // The worker's index in the whole run (a worker process holds one worker: ctx.worker(0)).
    int index() const { return global_; }
    uint64_t bytes() const;
    int copies_done() const;
    pybind11::list records() const;
    pybind11::dict thread_info() const;

  private:
    Worker& checked_worker(bool need_running) const;
    void ensure_entered();

    std::shared_ptr<RunState> state_;
    int index_;   // position among this interpreter's workers
    int global_;  // index in the whole run
    bool stages_;  // [threads] gap_stages: stamp the gap's stages (Worker::stamp_*)
};

// pybind11 gives its types hidden visibility; a class holding a py::object must match.
class __attribute__((visibility("hidden"))) PayloadContext {
  public:
    explicit PayloadContext(std::shared_ptr<RunState> state);

    PayloadWorker worker(int index);
    void barrier(pybind11::object index);
    bool stop_requested() const;
    void note(const std::string& text);
    // Ends the run as skipped with `reason` (stops its other threads); raises xferlab.Stopped.
    [[noreturn]] void skip(const std::string& reason);
    const Run& run() const { return state_->run; }
    // ctx.gil: the run's policy, "release" or "hold"; "none" where the interpreter has no GIL.
    std::string gil() const;
    // Workers this interpreter drives: threads.count, or 1 in a worker process.
    int worker_count() const { return state_->worker_count(); }
    pybind11::object params() const { return params_; }
    std::string payload() const { return state_->payload_path.string(); }

  private:
    std::shared_ptr<RunState> state_;
    pybind11::object params_;
};

// Host memory for free-form payloads, exposed through the buffer protocol.
class PayloadHostBuffer {
  public:
    PayloadHostBuffer(uint64_t bytes, const std::string& kind);
    HostBuffer& buffer() { return buffer_; }
    std::string kind() const { return kind_; }

  private:
    HostBuffer buffer_;
    std::string kind_;
};

// The worker the calling thread last took with ctx.worker(i) (or entered) in run `run_id`;
// -1 when none.
int worker_bound_to_this_thread(uint64_t run_id);

}  // namespace xfer
