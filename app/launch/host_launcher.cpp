// Launcher "host": plain pthreads, so that every attribute a scenario sets is applied the way
// a C/C++ program would apply it (pthread_attr at creation, the rest from inside the thread).
#include "launch/host_launcher.hpp"

#include <pthread.h>

#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "launch/launch_common.hpp"
#include "launch/thread_control.hpp"

namespace xfer {
namespace {

struct ThreadJob {
    RunContext* ctx = nullptr;
    std::mutex* errors_mutex = nullptr;
    int index = 0;
    std::vector<int> cpus;
};

void* host_thread(void* arg) {
    ThreadJob& job = *static_cast<ThreadJob*>(arg);
    RunContext& ctx = *job.ctx;
    try {
        const ThreadSpec& spec = ctx.run.threads;
        // 15 characters at most: the kernel's comm limit.
        std::string name = "xfer-host-" + std::to_string(job.index);
        pthread_setname_np(pthread_self(), name.substr(0, 15).c_str());
        apply_signal_mask(spec.signal_mask);
        apply_affinity(job.cpus);
        apply_policy(spec.policy);
        run_worker_loop(*ctx.workers[size_t(job.index)], "host", spec, ctx.gate, ctx.stop);
    } catch (const std::exception& e) {
        detail::record_worker_failure(ctx, *job.errors_mutex, job.index, e.what());
    } catch (...) {
        detail::record_worker_failure(ctx, *job.errors_mutex, job.index, "unknown exception");
    }
    return nullptr;
}

class HostLauncher final : public Launcher {
public:
    std::string name() const override { return "host"; }

    void launch(RunContext& ctx) override {
        ThreadAttributes attributes(ctx.run.threads);  // a bad stack size: cannot start at all
        std::mutex errors_mutex;
        std::vector<std::vector<int>> cpus = detail::worker_affinities(ctx, ctx.notes);
        const int n = int(ctx.workers.size());
        std::vector<ThreadJob> jobs(static_cast<size_t>(n));
        std::vector<pthread_t> threads;
        threads.reserve(size_t(n));
        for (int i = 0; i < n; ++i) {
            jobs[size_t(i)] = {&ctx, &errors_mutex, i, std::move(cpus[size_t(i)])};
            pthread_t thread;
            if (int rc = pthread_create(&thread, &attributes.attr, host_thread, &jobs[size_t(i)])) {
                // The threads already started are waiting at the gate: abort releases them.
                detail::record_worker_failure(ctx, errors_mutex, i,
                                              std::string("pthread_create: ") + std::strerror(rc));
                break;
            }
            threads.push_back(thread);
        }
        for (pthread_t t : threads) pthread_join(t, nullptr);
    }
};

}  // namespace

std::unique_ptr<Launcher> make_host_launcher() { return std::make_unique<HostLauncher>(); }

}  // namespace xfer
