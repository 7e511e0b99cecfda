// The SIGINT/SIGTERM handler: repeats of one stop are absorbed; only a signal more than the
// repeat window after the first, once the partial report has begun, ends the process. Each case
// runs in a forked child, since the handler is the process's and may end it.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <functional>
#include <string>
#include <thread>

#include "support/catch.hpp"
#include "system/stop_signal.hpp"

using namespace xfer;

namespace {

struct ChildOutcome {
    std::string steps;  // one character per step the child lived through
    int status = 0;     // as waitpid gives it
};

// Runs `body` in a child process; `step(c)` reports that the child got past a point.
ChildOutcome in_child(const std::function<void(const std::function<void(char)>&)>& body) {
    int fds[2];
    REQUIRE(pipe(fds) == 0);
    const pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        ::close(fds[0]);
        body([&](char c) {
            if (::write(fds[1], &c, 1) != 1) _exit(3);
        });
        _exit(0);
    }
    ::close(fds[1]);
    ChildOutcome out;
    char c;
    while (::read(fds[0], &c, 1) == 1) out.steps += c;
    ::close(fds[0]);
    while (waitpid(pid, &out.status, 0) < 0 && errno == EINTR) {
    }
    return out;
}

void sleep_past_repeat_window() {
    std::this_thread::sleep_for(std::chrono::nanoseconds(kStopRepeatWindowNs) +
                                std::chrono::milliseconds(50));
}

}  // namespace

TEST_CASE("stop signal: the first asks for the stop, repeats before the report are absorbed",
          "[system][signals]") {
    const ChildOutcome o = in_child([](const std::function<void(char)>& step) {
        install_stop_handlers();
        raise(SIGINT);
        if (stop_requested().load()) step('1');
        raise(SIGTERM);  // e.g. `timeout`'s signal to the group: the same stop
        raise(SIGINT);
        step('2');
        sleep_past_repeat_window();
        raise(SIGINT);  // still before the report: the run is stopping anyway
        step('3');
        stop_report_started();
        raise(SIGINT);  // during the report and well after the first: the user insists
        step('4');
    });
    CHECK(o.steps == "123");
    REQUIRE(WIFSIGNALED(o.status));
    CHECK(WTERMSIG(o.status) == SIGINT);  // the default action, as without a handler
}

TEST_CASE("stop signal: a repeat within the window of the first does not end the report",
          "[system][signals]") {
    const ChildOutcome o = in_child([](const std::function<void(char)>& step) {
        install_stop_handlers();
        raise(SIGINT);
        stop_report_started();  // the signal came between runs: the report begins at once
        raise(SIGINT);          // the group's copy of the same signal
        step('1');
    });
    CHECK(o.steps == "1");
    REQUIRE(WIFEXITED(o.status));
    CHECK(WEXITSTATUS(o.status) == 0);
}
