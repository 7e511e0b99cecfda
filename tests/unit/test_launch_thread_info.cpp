// ThreadInfo as read from inside a thread, signal names both ways, and the differences
// between two threads spelled out for people.
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <thread>

#include "system/thread_info.hpp"
#include "support/catch.hpp"
#include "system/signal_names.hpp"
#include "system/thread_probe.hpp"

using namespace xfer;

TEST_CASE("the main thread's ThreadInfo is read from the main thread", "[thread_info]") {
    ThreadInfo t = capture_thread_info("main", -1);
    CHECK(t.launcher == "main");
    CHECK(t.worker == -1);
    CHECK(t.pid == getpid());
    CHECK(t.tid == getpid());
    CHECK(t.stack_size > 0);
    CHECK(!t.cpus.empty());
    CHECK(t.policy == "other");
    CHECK(!t.hostname.empty());
    CHECK_FALSE(t.gil_held.has_value());
    CHECK_FALSE(t.python_thread);
}

TEST_CASE("a thread's own mask, name and identity are what it reports", "[thread_info]") {
    ThreadInfo t;
    std::thread([&] {
        pthread_setname_np(pthread_self(), "probe-7");
        sigset_t set;
        sigemptyset(&set);
        sigaddset(&set, SIGUSR1);
        sigaddset(&set, SIGRTMIN + 3);
        pthread_sigmask(SIG_SETMASK, &set, nullptr);
        t = capture_thread_info("host", 7);
    }).join();
    CHECK(t.name == "probe-7");
    CHECK(t.worker == 7);
    CHECK(t.tid != getpid());
    CHECK(t.blocked_signals == std::vector<int>{SIGUSR1, SIGRTMIN + 3});
}

TEST_CASE("signal names and numbers, both ways", "[thread_info]") {
    CHECK(signal_name(SIGINT) == "SIGINT");
    CHECK(signal_name(SIGUSR1) == "SIGUSR1");
    CHECK(signal_name(SIGRTMIN) == "SIGRTMIN");
    CHECK(signal_name(SIGRTMIN + 3) == "SIGRTMIN+3");
    CHECK(signal_name(SIGRTMAX) == "SIGRTMAX");
    CHECK(signal_name(200) == "SIG200");
    CHECK(signal_number("SIGINT") == SIGINT);
    CHECK(signal_number("int") == SIGINT);
    CHECK(signal_number("SIGRTMIN+3") == SIGRTMIN + 3);
    CHECK(signal_number("SIGRTMAX-1") == SIGRTMAX - 1);
    CHECK(signal_number("SIGIOT") == SIGABRT);
    CHECK(signal_number("SIG10") == 10);
    CHECK_FALSE(signal_number("SIGNOPE").has_value());
    CHECK_FALSE(signal_number("SIGRTMIN+200").has_value());
    CHECK_FALSE(signal_number("SIG0").has_value());
    for (int s = 1; s <= SIGRTMAX; ++s) CHECK(signal_number(signal_name(s)) == s);
}

TEST_CASE("differences are spelled out, identity is ignored", "[thread_info]") {
    ThreadInfo a, b;
    a.tid = 1, b.tid = 2;
    a.name = "x", b.name = "y";
    a.worker = 0, b.worker = 1;
    CHECK(thread_info_differences(a, b).empty());

    a.stack_size = 8 << 20, b.stack_size = 256 << 10;
    a.guard_size = 4096, b.guard_size = 4096;
    a.blocked_signals = {}, b.blocked_signals = {SIGINT, SIGUSR1};
    a.cpus = {0, 1, 2, 3, 8}, b.cpus = {0};
    a.policy = "other", b.policy = "fifo";
    a.priority = 0, b.priority = 10;
    a.nice = 0, b.nice = 5;
    b.python_thread = true;
    auto d = thread_info_differences(a, b);
    CHECK(d == std::vector<std::string>{
                   "stack_size: 8 MiB vs 256 KiB",
                   "blocked_signals: none vs {SIGINT, SIGUSR1}",
                   "cpus: 0-3,8 vs 0",
                   "policy: other vs fifo",
                   "priority: 0 vs 10",
                   "nice: 0 vs 5",
                   "python_thread: no vs yes",
               });

    ThreadInfo all;
    for (int s = 1; s <= SIGRTMAX; ++s)
        if (s != SIGKILL && s != SIGSTOP) all.blocked_signals.push_back(s);
    auto e = thread_info_differences(ThreadInfo{}, all);
    REQUIRE(e.size() == 1);
    CHECK(e[0] == "blocked_signals: none vs " + std::to_string(SIGRTMAX - 2) +
                      " signals (all but SIGKILL, SIGSTOP)");
    ThreadInfo most = all;
    most.blocked_signals.erase(most.blocked_signals.begin());  // SIGHUP unblocked
    auto f = thread_info_differences(all, most);
    REQUIRE(f.size() == 1);
    CHECK(f[0].find("(only first: SIGHUP)") != std::string::npos);
}
