// Launcher "host+gil": the host launcher's threads and loop, plus the one thing a Python
// thread adds around w.copy(): the GIL. Each thread attaches to the interpreter, holds the GIL
// between copies (as a Python thread does while it runs the payload's loop) and releases it
// for the copy with the same pybind11 guard w.copy() uses (gil = release), or keeps it across
// (gil = hold). Comparing host, host+gil and python separates "the GIL hand-off" from "a
// thread created by Python".
#include <pthread.h>
#include <pybind11/embed.h>

#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "launch/launch_common.hpp"
#include "launch/thread_control.hpp"
#include "python/interpreter.hpp"
#include "python/payload_objects.hpp"
#include "python/python_launcher.hpp"

namespace py = pybind11;

namespace xfer {
namespace {

struct GilJob {
    RunContext* ctx = nullptr;
    std::mutex* errors_mutex = nullptr;
    int index = 0;
    std::vector<int> cpus;
};

// run_worker_loop with the GIL hand-off of a Python thread around each copy.
void gil_worker_loop(Worker& worker, const ThreadSpec& threads, GilPolicy gil, StartGate& gate,
                     const std::atomic<bool>& stop) {
    py::gil_scoped_acquire attach;  // a thread state for this thread, and the GIL
    {
        py::gil_scoped_release release;  // set-up and the start gate are not Python's business
        worker.enter_thread("host+gil");
        if (gate.arrive_and_wait(worker.index()) < 0) return;
    }
    const int total = worker.warmup() + worker.repetitions();
    for (int i = 0; i < total; ++i) {
        if (stop.load(std::memory_order_relaxed)) break;
        if (gil == GilPolicy::release) {
            py::gil_scoped_release release;
            observe_gil_during_copy(worker);
            worker.copy_once();
        } else {
            observe_gil_during_copy(worker);
            worker.copy_once();
        }
        if (i + 1 < total && threads.between.kind != BetweenKind::none) {
            // time.sleep and os.sched_yield release the GIL too.
            py::gil_scoped_release release;
            apply_between(threads.between);
        }
    }
}

void* host_gil_thread(void* arg) {
    GilJob& job = *static_cast<GilJob*>(arg);
    RunContext& ctx = *job.ctx;
    try {
        const ThreadSpec& spec = ctx.run.threads;
        std::string name = "xfer-hgil-" + std::to_string(job.index);
        pthread_setname_np(pthread_self(), name.substr(0, 15).c_str());
        apply_signal_mask(spec.signal_mask);
        apply_affinity(job.cpus);
        apply_policy(spec.policy);
        gil_worker_loop(*ctx.workers[size_t(job.index)], spec, ctx.run.spec.gil, ctx.gate,
                        ctx.stop);
    } catch (const std::exception& e) {
        detail::record_worker_failure(ctx, *job.errors_mutex, job.index, e.what());
    } catch (...) {
        detail::record_worker_failure(ctx, *job.errors_mutex, job.index, "unknown exception");
    }
    return nullptr;
}

class HostGilLauncher final : public Launcher {
  public:
    std::string name() const override { return "host+gil"; }

    void launch(RunContext& ctx) override {
        ensure_interpreter(ctx.payload_dir);
        ThreadAttributes attributes(ctx.run.threads);
        std::mutex errors_mutex;
        std::vector<std::vector<int>> cpus = detail::worker_affinities(ctx, ctx.notes);
        const int n = int(ctx.workers.size());
        std::vector<GilJob> jobs(static_cast<size_t>(n));
        std::vector<pthread_t> threads;
        threads.reserve(size_t(n));
        for (int i = 0; i < n; ++i) {
            jobs[size_t(i)] = {&ctx, &errors_mutex, i, std::move(cpus[size_t(i)])};
            pthread_t thread;
            if (int rc =
                    pthread_create(&thread, &attributes.attr, host_gil_thread, &jobs[size_t(i)])) {
                detail::record_worker_failure(ctx, errors_mutex, i,
                                              std::string("pthread_create: ") + std::strerror(rc));
                break;
            }
            threads.push_back(thread);
        }
        // This thread does not hold the GIL (released after start-up): joining cannot block
        // the workers' hand-offs.
        for (pthread_t t : threads) pthread_join(t, nullptr);
    }
};

}  // namespace

std::unique_ptr<Launcher> make_host_gil_launcher() { return std::make_unique<HostGilLauncher>(); }

}  // namespace xfer
