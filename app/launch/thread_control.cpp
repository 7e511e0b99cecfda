// Applying what a scenario asks of a worker thread. Everything here runs before the start
// gate, never inside the timed loop, except apply_between (between copies, untimed).
#include "launch/thread_control.hpp"

#include <sched.h>
#include <signal.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <ctime>
#include <stdexcept>
#include <string>

#include "system/cpu_topology.hpp"
#include "system/thread_info.hpp"
#include "system/signal_names.hpp"
#include "util/clock.hpp"
#include "util/cpu_pause.hpp"

namespace xfer {
namespace {

[[noreturn]] void fail(const std::string& what, int err) {
    throw std::runtime_error(what + ": " + std::strerror(err));
}

std::string cpu_list(const std::vector<int>& cpus) {
    std::string out;
    for (int c : cpus) out += (out.empty() ? "" : ",") + std::to_string(c);
    return "{" + out + "}";
}

}  // namespace

std::vector<int> affinity_for_worker(const AffinitySpec& spec, int worker, int count,
                                     const std::vector<int>& gpu_local_cpus) {
    (void)count;  // every mode wraps around the CPUs it has; the count does not change them
    switch (spec.kind) {
        case AffinityKind::none:
            return {};
        case AffinityKind::compact: {
            std::vector<int> cpus = allowed_cpus();
            return {cpus[size_t(worker) % cpus.size()]};
        }
        case AffinityKind::scatter: {
            std::vector<int> order = scatter_order(cpu_places(allowed_cpus()));
            return {order[size_t(worker) % order.size()]};
        }
        case AffinityKind::gpu_local:
            return gpu_local_cpus;  // the whole local set
        case AffinityKind::list:
            if (spec.cpus.empty()) return {};
            return {spec.cpus[size_t(worker) % spec.cpus.size()]};
    }
    return {};
}

void apply_signal_mask(const SignalMaskSpec& spec) {
    sigset_t set;
    switch (spec.kind) {
        case SignalMaskKind::inherit:
            return;
        case SignalMaskKind::block_all:
            // The kernel never blocks SIGKILL/SIGSTOP; glibc keeps its own two (cancellation,
            // setxid) unblocked. ThreadInfo shows what remained.
            sigfillset(&set);
            break;
        case SignalMaskKind::unblock_all:
            sigemptyset(&set);
            break;
        case SignalMaskKind::list:
            sigemptyset(&set);
            for (int s : spec.signals)
                if (sigaddset(&set, s) != 0)
                    fail("signal_mask: " + signal_name(s) + " (" + std::to_string(s) + ")", errno);
            break;
    }
    if (int rc = pthread_sigmask(SIG_SETMASK, &set, nullptr)) fail("pthread_sigmask", rc);
}

void apply_affinity(const std::vector<int>& cpus) {
    if (cpus.empty()) return;
    cpu_set_t set;
    CPU_ZERO(&set);
    for (int c : cpus) {
        if (c < 0 || c >= CPU_SETSIZE)
            throw std::runtime_error("affinity: CPU " + std::to_string(c) + " is out of range");
        CPU_SET(c, &set);
    }
    if (sched_setaffinity(0, sizeof set, &set) != 0)
        fail("sched_setaffinity(" + cpu_list(cpus) + ")", errno);
}

void apply_policy(const PolicySpec& spec) {
    int policy = SCHED_OTHER;
    const char* name = "SCHED_OTHER";
    switch (spec.policy) {
        case SchedPolicy::other:
            break;
        case SchedPolicy::batch:
            policy = SCHED_BATCH, name = "SCHED_BATCH";
            break;
        case SchedPolicy::idle:
            policy = SCHED_IDLE, name = "SCHED_IDLE";
            break;
        case SchedPolicy::fifo:
            policy = SCHED_FIFO, name = "SCHED_FIFO";
            break;
        case SchedPolicy::rr:
            policy = SCHED_RR, name = "SCHED_RR";
            break;
    }
    const bool realtime = policy == SCHED_FIFO || policy == SCHED_RR;
    sched_param param{};
    param.sched_priority = realtime ? spec.priority : 0;
    if (int rc = pthread_setschedparam(pthread_self(), policy, &param)) {
        std::string what = std::string("pthread_setschedparam(") + name;
        if (realtime) what += ", priority " + std::to_string(spec.priority);
        what += ")";
        if (rc == EPERM && realtime)
            throw std::runtime_error(what + ": " + std::strerror(rc) +
                                     " (real-time policies need CAP_SYS_NICE or an "
                                     "RLIMIT_RTPRIO of at least the priority)");
        fail(what, rc);
    }
}

int64_t apply_between(const BetweenSpec& spec) {
    if (spec.kind == BetweenKind::none) return 0;
    const int64_t t0 = now_ns();
    switch (spec.kind) {
        case BetweenKind::none:
            break;
        case BetweenKind::yield:
            sched_yield();
            break;
        case BetweenKind::sleep: {
            timespec left{time_t(spec.sleep_ns / 1'000'000'000),
                          long(spec.sleep_ns % 1'000'000'000)};
            while (nanosleep(&left, &left) != 0 && errno == EINTR) {
            }
            break;
        }
        case BetweenKind::spin:
            // No system call: the thread stays runnable and on its CPU, so the gap is the
            // duration asked for, not the duration plus a wake-up.
            while (now_ns() - t0 < spec.sleep_ns) cpu_pause();
            break;
    }
    return now_ns() - t0;
}

ThreadAttributes::ThreadAttributes(const ThreadSpec& spec) {
    if (int rc = pthread_attr_init(&attr)) fail("pthread_attr_init", rc);
    if (spec.stack_size != 0) {
        if (int rc = pthread_attr_setstacksize(&attr, size_t(spec.stack_size))) {
            pthread_attr_destroy(&attr);
            fail("threads.stack_size = " + std::to_string(spec.stack_size) +
                     " bytes: pthread_attr_setstacksize (the minimum is " +
                     std::to_string(PTHREAD_STACK_MIN) + " bytes)",
                 rc);
        }
    }
    if (spec.guard_size != 0) {
        if (int rc = pthread_attr_setguardsize(&attr, size_t(spec.guard_size))) {
            pthread_attr_destroy(&attr);
            fail("threads.guard_size = " + std::to_string(spec.guard_size) +
                     " bytes: pthread_attr_setguardsize",
                 rc);
        }
    }
}

ThreadAttributes::~ThreadAttributes() { pthread_attr_destroy(&attr); }

}  // namespace xfer
