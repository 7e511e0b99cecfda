#include "system/thread_probe.hpp"

#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <csignal>
#include <filesystem>

#include "system/hostname.hpp"

namespace xfer {
namespace {

std::string policy_name(int policy) {
    switch (policy & ~SCHED_RESET_ON_FORK) {
        case SCHED_OTHER:
            return "other";
        case SCHED_BATCH:
            return "batch";
        case SCHED_IDLE:
            return "idle";
        case SCHED_FIFO:
            return "fifo";
        case SCHED_RR:
            return "rr";
    }
    return "policy" + std::to_string(policy);
}

}  // namespace

// sysfs lists the node as a "node<M>" entry in the CPU's folder: no libnuma needed here.
int numa_node_of_cpu(int cpu) {
    if (cpu < 0) return -1;
    std::error_code ec;
    std::filesystem::directory_iterator it("/sys/devices/system/cpu/cpu" + std::to_string(cpu), ec);
    for (; !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
        std::string name = it->path().filename().string();
        if (name.size() > 4 && name.compare(0, 4, "node") == 0 &&
            std::isdigit(static_cast<unsigned char>(name[4])))
            return std::stoi(name.substr(4));
    }
    return -1;
}

ThreadInfo capture_thread_info(const std::string& launcher, int worker) {
    ThreadInfo info;
    info.launcher = launcher;
    info.worker = worker;
    info.pid = int(getpid());
    info.tid = int(gettid());

    char name[64] = {};
    if (pthread_getname_np(pthread_self(), name, sizeof name) == 0) info.name = name;
    info.hostname = this_hostname();

    // For the main thread glibc derives the stack from RLIMIT_STACK and the mapping: what the
    // main thread may grow to, which is what it got.
    pthread_attr_t attr;
    if (pthread_getattr_np(pthread_self(), &attr) == 0) {
        size_t stack = 0, guard = 0;
        if (pthread_attr_getstacksize(&attr, &stack) == 0) info.stack_size = stack;
        if (pthread_attr_getguardsize(&attr, &guard) == 0) info.guard_size = guard;
        pthread_attr_destroy(&attr);
    }

    sigset_t mask;
    sigemptyset(&mask);
    if (pthread_sigmask(SIG_BLOCK, nullptr, &mask) == 0) {
        for (int s = 1; s <= SIGRTMAX; ++s)
            if (sigismember(&mask, s) == 1) info.blocked_signals.push_back(s);
    }

    cpu_set_t cpus;
    CPU_ZERO(&cpus);
    if (sched_getaffinity(0, sizeof cpus, &cpus) == 0) {
        for (int c = 0; c < CPU_SETSIZE; ++c)
            if (CPU_ISSET(c, &cpus)) info.cpus.push_back(c);
    }

    // pid 0 in the sched_* and priority calls is the calling thread on Linux.
    info.policy = policy_name(sched_getscheduler(0));
    sched_param param{};
    if (sched_getparam(0, &param) == 0) info.priority = param.sched_priority;
    errno = 0;
    int nice = getpriority(PRIO_PROCESS, id_t(info.tid));
    if (errno == 0) info.nice = nice;

    info.numa_node = numa_node_of_cpu(sched_getcpu());
    return info;
}

}  // namespace xfer
