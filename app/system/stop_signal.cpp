#include "system/stop_signal.hpp"

#include <signal.h>

#include <cerrno>
#include <initializer_list>

#include "util/clock.hpp"

namespace xfer {
namespace {

// Read and written from the handler: must not take a lock.
static_assert(std::atomic<int64_t>::is_always_lock_free && std::atomic<bool>::is_always_lock_free);

std::atomic<bool> g_stop{false};
std::atomic<int> g_stop_cause{0};
std::atomic<int64_t> g_first_signal_ns{0};
std::atomic<bool> g_report_started{false};

// Async-signal-safe: atomics (lock-free here), clock_gettime, sigaction and raise.
extern "C" void on_stop_signal(int sig) {
    const int saved_errno = errno;
    const int64_t now = now_ns();
    if (!g_stop.exchange(true)) {
        g_stop_cause.store(sig);
        g_first_signal_ns.store(now);
    } else if (g_report_started.load() && now - g_first_signal_ns.load() > kStopRepeatWindowNs) {
        struct sigaction dfl {};
        dfl.sa_handler = SIG_DFL;
        sigemptyset(&dfl.sa_mask);
        sigaction(sig, &dfl, nullptr);
        // Blocked while this handler runs: delivered, with its default action, on return.
        raise(sig);
    }
    errno = saved_errno;
}

}  // namespace

std::atomic<bool>& stop_requested() { return g_stop; }

int stop_cause() { return g_stop_cause.load(); }

void request_stop(int cause) {
    if (g_stop.exchange(true)) return;
    g_stop_cause.store(cause);
    g_first_signal_ns.store(now_ns());
}

void add_stop_signals(sigset_t& set) {
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&set, sig);
}

void install_stop_handlers() {
    struct sigaction sa {};
    sa.sa_handler = on_stop_signal;
    // One handler at a time per thread, for any of the signals.
    sigemptyset(&sa.sa_mask);
    add_stop_signals(sa.sa_mask);
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaction(sig, &sa, nullptr);
}

void stop_report_started() { g_report_started.store(true); }

void unblock_stop_signals() {
    sigset_t set;
    sigemptyset(&set);
    add_stop_signals(set);
    pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
}

}  // namespace xfer
