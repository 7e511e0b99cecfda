// Launcher "openmp": the workers are the threads of one parallel region, as in an OpenMP task
// runtime. The thread pool outlives the region, so each thread resets what an earlier run may
// have left on it (mask, affinity) to what a fresh thread would have inherited.
#include "launch/openmp_launcher.hpp"

#include <omp.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "launch/copy_loop.hpp"
#include "launch/openmp_team.hpp"
#include "launch/thread_control.hpp"
#include "launch/worker_affinities.hpp"
#include "util/units.hpp"

namespace xfer {
namespace {

std::string env_or(const char* name, const char* fallback) {
    const char* v = std::getenv(name);
    return v ? std::string(name) + "=" + v : std::string(name) + " " + fallback;
}

// The calling thread's state, saved before the region (it becomes worker 0) and restored after.
struct CallerState {
    sigset_t mask;
    cpu_set_t cpus;
    int policy = SCHED_OTHER;
    sched_param param{};
    char name[16] = {};

    CallerState() {
        pthread_sigmask(SIG_BLOCK, nullptr, &mask);
        CPU_ZERO(&cpus);
        sched_getaffinity(0, sizeof cpus, &cpus);
        pthread_getschedparam(pthread_self(), &policy, &param);
        pthread_getname_np(pthread_self(), name, sizeof name);
    }

    // Returns a note when something could not be put back.
    std::string restore() const {
        std::string problems;
        pthread_setname_np(pthread_self(), name);
        pthread_sigmask(SIG_SETMASK, &mask, nullptr);
        if (sched_setaffinity(0, sizeof cpus, &cpus) != 0)
            problems += std::string(" affinity (") + std::strerror(errno) + ")";
        if (int rc = pthread_setschedparam(pthread_self(), policy, &param))
            problems += std::string(" policy (") + std::strerror(rc) + ")";
        return problems.empty() ? "" : "openmp: could not restore the main thread's" + problems;
    }
};

void add_notes(const ThreadSpec& spec, bool omp_binds, std::vector<std::string>& notes) {
    if (spec.stack_size != 0 || spec.guard_size != 0) {
        // libgomp reads OMP_STACKSIZE once, when it is loaded: setenv at run time changes
        // nothing, so the only honest thing is to say so (ThreadInfo shows what applied).
        notes.push_back(
            "openmp: threads.stack_size/guard_size are not applied to OpenMP threads: "
            "their stack is set by OMP_STACKSIZE in the environment xferlab starts "
            "with (" +
            env_or("OMP_STACKSIZE", "unset: the runtime's default") +
            "), and worker 0 is the calling thread with its own stack");
    }
    if (omp_binds) {
        std::string binding =
            env_or("OMP_PROC_BIND", "unset") + ", " + env_or("OMP_PLACES", "unset");
        if (spec.affinity.kind != AffinityKind::none)
            notes.push_back(
                "openmp: threads.affinity not applied: OpenMP's own binding is "
                "honoured (" +
                binding + ")");
        else
            notes.push_back("openmp: OpenMP's own binding applies (" + binding + ")");
    }
}

class OpenMpLauncher final : public Launcher {
public:
    std::string name() const override { return "openmp"; }

    void launch(RunContext& ctx) override {
        const ThreadSpec& spec = ctx.run.settings.threads;
        const int n = int(ctx.workers.size());
        if (n == 0) return;
        const bool omp_binds = std::getenv("OMP_PROC_BIND") || std::getenv("OMP_PLACES");
        add_notes(spec, omp_binds, ctx.notes);
        std::vector<std::vector<int>> cpus(static_cast<size_t>(n));
        if (!omp_binds) cpus = detail::worker_affinities(ctx, ctx.notes);

        // libgomp ends the process when it cannot create a thread: refused here instead.
        if (const std::string why = openmp_team_problem(n); !why.empty())
            throw std::runtime_error(why);
        const CallerState caller;
        std::mutex errors_mutex;
        omp_set_dynamic(0);  // exactly n threads or an error, never silently fewer
#pragma omp parallel num_threads(n)
        {
            const int i = omp_get_thread_num();
            try {
                if (omp_get_num_threads() != n) {
                    if (i == 0)
                        throw std::runtime_error(
                            "OpenMP started " + std::to_string(omp_get_num_threads()) +
                            " threads of " + std::to_string(n) + " (OMP_THREAD_LIMIT?)");
                    ctx.gate.abort();
                } else {
                    std::string name = "xfer-omp-" + std::to_string(i);
                    pthread_setname_np(pthread_self(), name.substr(0, 15).c_str());
                    if (spec.signal_mask.kind == SignalMaskKind::inherit)
                        pthread_sigmask(SIG_SETMASK, &caller.mask, nullptr);
                    else
                        apply_signal_mask(spec.signal_mask);
                    if (!omp_binds) {
                        if (cpus[size_t(i)].empty())
                            sched_setaffinity(0, sizeof caller.cpus, &caller.cpus);
                        else
                            apply_affinity(cpus[size_t(i)]);
                    }
                    apply_policy(spec.policy);
                    run_worker_loop(*ctx.workers[size_t(i)], "openmp", spec, ctx.gate,
                                    {&ctx.stop, nullptr, ctx.deadline});
                }
            } catch (const std::exception& e) {
                record_worker_failure(ctx, errors_mutex, i, e.what());
            } catch (...) {
                record_worker_failure(ctx, errors_mutex, i, "unknown exception");
            }
        }
        openmp_team_started(n);
        std::string problem = caller.restore();
        if (!problem.empty()) ctx.notes.push_back(problem);
    }
};

}  // namespace

std::unique_ptr<Launcher> make_openmp_launcher() { return std::make_unique<OpenMpLauncher>(); }

}  // namespace xfer
