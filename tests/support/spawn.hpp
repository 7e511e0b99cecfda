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

inline Background start_background(const std::string& command, const std::filesystem::path& dir) {
    Background b;
    b.out = dir / "stdout.txt";
    b.err = dir / "stderr.txt";
    std::string full =
        "exec " + command + " >'" + b.out.string() + "' 2>'" + b.err.string() + "' </dev/null";
    const char* argv[] = {"/bin/sh", "-c", full.c_str(), nullptr};
    if (posix_spawn(&b.pid, "/bin/sh", nullptr, nullptr, const_cast<char**>(argv), environ) != 0)
        b.pid = -1;
    return b;
}

// The exit code as a shell reports it: 128 + the signal for a process killed by one.
inline int wait_exit_code(pid_t pid) {
    int status = 0;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) return -1;
    }
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
