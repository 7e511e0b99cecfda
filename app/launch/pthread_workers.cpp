#include "launch/pthread_workers.hpp"

#include <pthread.h>

#include <cstring>
#include <mutex>
#include <vector>

#include "launch/worker_affinities.hpp"
#include "launch/thread_control.hpp"

namespace xfer {
namespace {

struct ThreadJob {
    RunContext* ctx = nullptr;
    const WorkerBody* body = nullptr;
    std::mutex* errors_mutex = nullptr;
    std::string name;
    int index = 0;
    std::vector<int> cpus;
};

void* worker_thread(void* arg) {
    ThreadJob& job = *static_cast<ThreadJob*>(arg);
    RunContext& ctx = *job.ctx;
    try {
        const ThreadSpec& spec = ctx.run.settings.threads;
        pthread_setname_np(pthread_self(), job.name.substr(0, 15).c_str());
        apply_signal_mask(spec.signal_mask);
        apply_affinity(job.cpus);
        apply_policy(spec.policy);
        (*job.body)(ctx, *ctx.workers[size_t(job.index)]);
    } catch (const std::exception& e) {
        record_worker_failure(ctx, *job.errors_mutex, job.index, e.what());
    } catch (...) {
        record_worker_failure(ctx, *job.errors_mutex, job.index, "unknown exception");
    }
    return nullptr;
}

}  // namespace

void run_pthread_workers(RunContext& ctx, const std::string& name_prefix, const WorkerBody& body) {
    ThreadAttributes attributes(ctx.run.settings.threads);  // a bad stack size: cannot start at all
    std::mutex errors_mutex;
    std::vector<std::vector<int>> cpus = detail::worker_affinities(ctx, ctx.notes);
    const int n = int(ctx.workers.size());
    std::vector<ThreadJob> jobs(static_cast<size_t>(n));
    std::vector<pthread_t> threads;
    threads.reserve(size_t(n));
    for (int i = 0; i < n; ++i) {
        jobs[size_t(i)] = {&ctx, &body, &errors_mutex, name_prefix + std::to_string(i), i,
                           std::move(cpus[size_t(i)])};
        pthread_t thread;
        if (int rc = pthread_create(&thread, &attributes.attr, worker_thread, &jobs[size_t(i)])) {
            // The threads already started are waiting at the gate: the failure aborts it.
            record_worker_failure(ctx, errors_mutex, i,
                                          std::string("pthread_create: ") + std::strerror(rc));
            break;
        }
        threads.push_back(thread);
    }
    for (pthread_t t : threads) pthread_join(t, nullptr);
}

}  // namespace xfer
