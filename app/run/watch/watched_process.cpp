#include "run/watch/watched_process.hpp"

#include <fmt/format.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "system/signal_names.hpp"
#include "util/clock.hpp"

extern char** environ;

namespace xfer {
namespace {

// The signals passed on to the program; SIGINT and SIGTERM also say the run was stopped.
constexpr int kPassedOn[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2};

std::atomic<pid_t> g_child{0};
std::atomic<bool> g_stopped{false};
static_assert(std::atomic<pid_t>::is_always_lock_free);

// Async-signal-safe: atomics and kill(2).
extern "C" void pass_on(int sig, siginfo_t* info, void*) {
    const int saved = errno;
    if (sig == SIGINT || sig == SIGTERM) g_stopped.store(true);
    const pid_t child = g_child.load();
    // si_code <= 0: sent by a process (kill, sigqueue, tgkill). The terminal's signals
    // (SI_KERNEL) went to the whole foreground group, the program included.
    const bool from_a_process = info && info->si_code <= 0;
    if (child > 0 && from_a_process && info->si_pid != child) kill(child, sig);
    errno = saved;
}

struct PassingOn {
    struct sigaction old[sizeof kPassedOn / sizeof kPassedOn[0]];
    PassingOn() {
        struct sigaction sa {};
        sa.sa_sigaction = pass_on;
        // No SA_RESTART: waitpid returns EINTR and is called again. With it, ThreadSanitizer,
        // which runs a handler only at its next intercepted call, saw the kernel restart waitpid
        // and never passed the signal on (test_cli_watch's signal case hung in the TSan build).
        sa.sa_flags = SA_SIGINFO;
        sigemptyset(&sa.sa_mask);
        for (size_t i = 0; i < std::size(kPassedOn); ++i) sigaction(kPassedOn[i], &sa, &old[i]);
    }
    ~PassingOn() {
        for (size_t i = 0; i < std::size(kPassedOn); ++i) sigaction(kPassedOn[i], &old[i], nullptr);
    }
};

std::string describe(int status) {
    if (WIFSIGNALED(status))
        return std::string("was killed by ") + signal_name(WTERMSIG(status)) +
               (WCOREDUMP(status) ? " (core dumped)" : "");
    if (WIFEXITED(status)) return fmt::format("exited with status {}", WEXITSTATUS(status));
    return "ended";
}

}  // namespace

std::vector<std::string> current_environment() {
    std::vector<std::string> out;
    for (char** e = environ; e && *e; ++e) out.emplace_back(*e);
    return out;
}

std::vector<std::string> environment_with(const std::vector<std::string>& base,
                                          const std::vector<std::string>& set) {
    std::vector<std::string> out;
    const auto name_of = [](const std::string& e) { return e.substr(0, e.find('=')); };
    for (const auto& e : base) {
        bool replaced = false;
        for (const auto& s : set) replaced |= name_of(s) == name_of(e);
        if (!replaced) out.push_back(e);
    }
    out.insert(out.end(), set.begin(), set.end());
    return out;
}

WatchedExit run_watched_process(const std::vector<std::string>& argv,
                                const std::vector<std::string>& env) {
    if (argv.empty()) throw std::runtime_error("no command to run");
    std::vector<std::string> args = argv, vars = env;
    std::vector<char*> arg_ptrs, env_ptrs;
    for (auto& a : args) arg_ptrs.push_back(a.data());
    arg_ptrs.push_back(nullptr);
    for (auto& e : vars) env_ptrs.push_back(e.data());
    env_ptrs.push_back(nullptr);
    // The program starts as it would from a shell: every signal at its default (xferlab
    // ignores SIGXFSZ, for one), none blocked.
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    sigset_t all, none;
    sigfillset(&all);
    sigemptyset(&none);
    posix_spawnattr_setsigdefault(&attr, &all);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
    WatchedExit out;
    g_stopped.store(false);
    PassingOn passing_on;
    // Held back until the program's pid is known, so that none sent meanwhile is lost.
    sigset_t passed, before;
    sigemptyset(&passed);
    for (int sig : kPassedOn) sigaddset(&passed, sig);
    pthread_sigmask(SIG_BLOCK, &passed, &before);
    pid_t pid = 0;
    out.start_ns = now_ns();
    const int rc =
        posix_spawnp(&pid, args[0].c_str(), nullptr, &attr, arg_ptrs.data(), env_ptrs.data());
    posix_spawnattr_destroy(&attr);
    if (rc == 0) g_child.store(pid);
    pthread_sigmask(SIG_SETMASK, &before, nullptr);
    if (rc != 0) throw std::runtime_error(args[0] + ": " + std::strerror(rc));
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    g_child.store(0);
    out.end_ns = now_ns();
    out.status = status;
    out.ended = describe(status);
    out.exit_code = WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
    out.stopped = g_stopped.load();
    return out;
}

}  // namespace xfer
