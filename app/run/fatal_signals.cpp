#include "run/fatal_signals.hpp"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <vector>

namespace xfer {
namespace {

constexpr int kSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};

// The handler may run at any moment, on any thread: it reads one of two fixed buffers through
// an atomic index, and set_crash_context() only ever writes the buffer not being published.
// (Two updates in a row while a crash is being reported could overwrite the text being read;
// the context changes once per run, far apart compared with one write().)
constexpr size_t kContextSize = 4096;
char g_context[2][kContextSize];
std::atomic<int> g_published{-1};
std::atomic<bool> g_installed{false};

const char* signal_name(int sig) {
    switch (sig) {
        case SIGSEGV:
            return "SIGSEGV, invalid memory access";
        case SIGBUS:
            return "SIGBUS, bus error";
        case SIGFPE:
            return "SIGFPE, arithmetic error";
        case SIGILL:
            return "SIGILL, illegal instruction";
        case SIGABRT:
            return "SIGABRT, abort";
        default:
            return "fatal signal";
    }
}

void write_all(const char* text) {
    size_t left = std::strlen(text);
    while (left > 0) {
        ssize_t n = ::write(STDERR_FILENO, text, left);
        if (n <= 0) return;  // nothing more can be done from here
        text += n;
        left -= size_t(n);
    }
}

extern "C" void on_fatal_signal(int sig) {
    write_all("\nxferlab: crashed (");
    write_all(signal_name(sig));
    write_all(")");
    const int i = g_published.load(std::memory_order_acquire);
    if (i >= 0) {
        write_all(" ");
        write_all(g_context[i]);
    }
    write_all("\n");
    // Back to the default action and raise again: the process ends by this very signal.
    ::signal(sig, SIG_DFL);
    ::raise(sig);
}

}  // namespace

void install_fatal_signal_handlers() {
    if (g_installed.exchange(true)) return;
    // An alternate stack for this (the main) thread: a stack overflow leaves no room to run a
    // handler on the overflowed stack itself. Other threads run the handler on their own stack.
    static std::vector<char> alt_stack(std::max<size_t>(SIGSTKSZ, 64 * 1024));
    stack_t ss{};
    ss.ss_sp = alt_stack.data();
    ss.ss_size = alt_stack.size();
    ::sigaltstack(&ss, nullptr);
    struct sigaction sa {};
    sa.sa_handler = on_fatal_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_ONSTACK | SA_RESETHAND;
    for (int sig : kSignals) ::sigaction(sig, &sa, nullptr);
}

void set_crash_context(const std::string& text) {
    if (text.empty()) {
        g_published.store(-1, std::memory_order_release);
        return;
    }
    const int next = g_published.load(std::memory_order_relaxed) == 0 ? 1 : 0;
    const size_t n = std::min(text.size(), kContextSize - 1);
    std::memcpy(g_context[next], text.data(), n);
    g_context[next][n] = '\0';
    g_published.store(next, std::memory_order_release);
}

}  // namespace xfer
