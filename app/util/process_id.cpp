#include "util/process_id.hpp"

#include <pthread.h>
#include <unistd.h>

#include <atomic>

namespace xfer {

namespace {

std::atomic<pid_t> g_pid{0};

void refresh() { g_pid.store(::getpid(), std::memory_order_relaxed); }

}  // namespace

pid_t process_id() {
    static const bool registered = [] {
        refresh();
        return pthread_atfork(nullptr, nullptr, refresh) == 0;
    }();
    // Without the fork handler the cached id could be a parent's: ask the kernel instead.
    return registered ? g_pid.load(std::memory_order_relaxed) : ::getpid();
}

}  // namespace xfer
