#pragma once
// Starts a shell command in the background (tests only), so that a test can signal it while it
// runs: the command is exec'd by /bin/sh, so the pid is the command's own.
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <string>
#include <thread>

#include "support/run_command.hpp"

extern char** environ;

namespace xfer::test {

struct Background {
    pid_t pid = -1;
    std::filesystem::path out, err;  // its stdout and stderr
};

// With `own_group`, the command leads a process group of its own (its id is the pid), as under
// `setsid` or `timeout`: kill(-pid, sig) then reaches it and every process it started.
inline Background start_background(const std::string& command, const std::filesystem::path& dir,
                                   bool own_group = false) {
    Background b;
    b.out = dir / "stdout.txt";
    b.err = dir / "stderr.txt";
    std::string full =
        "exec " + command + " >'" + b.out.string() + "' 2>'" + b.err.string() + "' </dev/null";
    const char* argv[] = {"/bin/sh", "-c", full.c_str(), nullptr};
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    if (own_group) {
        posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
        posix_spawnattr_setpgroup(&attr, 0);
    }
    if (posix_spawn(&b.pid, "/bin/sh", nullptr, &attr, const_cast<char**>(argv), environ) != 0)
        b.pid = -1;
    posix_spawnattr_destroy(&attr);
    return b;
}

// The status as waitpid gives it (WIFEXITED, WTERMSIG, ...), or -1.
inline int wait_status(pid_t pid) {
    int status = 0;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) return -1;
    }
    return status;
}

// The exit code as a shell reports it: 128 + the signal for a process killed by one.
inline int wait_exit_code(pid_t pid) {
    const int status = wait_status(pid);
    if (status == -1) return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// Polls `ready` every 20 ms until it holds or `limit` passes (a safety net against a hung test,
// not a measurement). Returns whether it held.
inline bool wait_until(const std::function<bool()>& ready,
                       std::chrono::seconds limit = std::chrono::seconds(120)) {
    const auto end = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < end) {
        if (ready()) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return ready();
}

}  // namespace xfer::test
