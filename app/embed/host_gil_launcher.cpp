// Launcher "host+gil": the host launcher's threads and loop, plus the one thing a Python
// thread adds around w.copy(): the GIL. Each thread attaches to the interpreter, holds the GIL
// between copies (as a Python thread does while it runs the payload's loop) and releases it
// for the copy with the same pybind11 guard w.copy() uses (gil = release), or keeps it across
// (gil = hold). Comparing host, host+gil and python separates "the GIL hand-off" from "a
// thread created by Python".
#include <pybind11/embed.h>

#include <string>

#include "launch/copy_loop.hpp"
#include "launch/pthread_workers.hpp"
#include "launch/thread_control.hpp"
#include "embed/interpreter.hpp"
#include "embed/interpreter_lock.hpp"
#include "embed/payload_objects.hpp"
#include "embed/python_launcher.hpp"

namespace py = pybind11;

namespace xfer {
namespace {

// What a Python thread adds around each copy: the GIL, released for the copy (gil = release) or
// kept across it (gil = hold), and released for the gap (time.sleep and os.sched_yield release
// it too).
class GilHandOff final : public CopyGuard {
  public:
    GilHandOff(GilPolicy gil, bool has_gil) : gil_(gil), has_gil_(has_gil) {}

    void copy(Worker& worker) override {
        if (gil_ == GilPolicy::release) {
            py::gil_scoped_release release;
            observe_gil_during_copy(worker, has_gil_);
            worker.copy_once();
        } else {
            observe_gil_during_copy(worker, has_gil_);
            worker.copy_once();
        }
    }
    void gap(Worker& worker, const BetweenSpec& between) override {
        py::gil_scoped_release release;
        worker.pause_between(between);
    }

  private:
    GilPolicy gil_;
    bool has_gil_;
};

void gil_worker_loop(Worker& worker, const ThreadSpec& threads, GilPolicy gil, StartGate& gate,
                     StopCondition stop) {
    py::gil_scoped_acquire attach;  // a thread state for this thread, and the GIL
    GilHandOff hand_off(gil, interpreter_has_gil());
    bool released;
    {
        py::gil_scoped_release release;  // set-up and the start gate are not Python's business
        worker.enter_thread("host+gil");
        released = gate.arrive_and_wait(worker.index()) >= 0;
    }
    if (!released) return;
    copy_loop(worker, worker.warmup() + worker.repetitions(), threads.between, stop, hand_off);
}

class HostGilLauncher final : public Launcher {
  public:
    std::string name() const override { return "host+gil"; }

    void launch(RunContext& ctx) override {
        ensure_interpreter(ctx.payload_dir);
        // The launching thread does not hold the GIL (released after start-up): joining the
        // workers cannot block their hand-offs.
        run_pthread_workers(ctx, "xfer-hgil-", [](RunContext& c, Worker& worker) {
            gil_worker_loop(worker, c.run.settings.threads, c.run.settings.gil, c.gate,
                            {&c.stop, nullptr, c.deadline});
        });
    }
};

}  // namespace

std::unique_ptr<Launcher> make_host_gil_launcher() { return std::make_unique<HostGilLauncher>(); }

}  // namespace xfer
