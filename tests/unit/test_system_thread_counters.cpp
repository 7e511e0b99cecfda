// The calling thread's counters (system/thread_counters.hpp): schedstat's text parsed, and each
// counter that reads here counting what the thread did on purpose between two readings (fresh
// pages touched, a sleep, CPU time burnt); a counter that does not read is named in
// unavailable(), with the reason.
#include <sched.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <string>

#include "support/catch.hpp"
#include "system/thread_counters.hpp"

using namespace xfer;

namespace {

int64_t thread_cpu_ns() {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return int64_t(t.tv_sec) * 1'000'000'000 + t.tv_nsec;
}

uint64_t delta(const ThreadCounterSample& a, const ThreadCounterSample& b, ThreadCounter c) {
    return b.value[size_t(c)] - a.value[size_t(c)];
}

bool read_both(const ThreadCounterSample& a, const ThreadCounterSample& b, ThreadCounter c) {
    return a.read[size_t(c)] && b.read[size_t(c)];
}

}  // namespace

TEST_CASE("schedstat: run time, wait time and timeslices, and nothing else read as them",
          "[system]") {
    const auto s = parse_schedstat("2044417 1500 7\n");
    REQUIRE(s);
    CHECK(s->run_ns == 2044417);
    CHECK(s->wait_ns == 1500);
    CHECK(s->timeslices == 7);
    CHECK_FALSE(parse_schedstat("2044417 1500\n"));
    CHECK_FALSE(parse_schedstat("run 1 2"));
    CHECK_FALSE(parse_schedstat(""));
}

TEST_CASE("each counter's name reads back as that counter", "[system]") {
    for (size_t i = 0; i < kThreadCounters; ++i)
        CHECK(thread_counter_named(thread_counter_name(ThreadCounter(i))) == ThreadCounter(i));
    CHECK_FALSE(thread_counter_named("cache_misses"));
}

TEST_CASE("the thread's counters count what it did between two readings", "[system]") {
    const ThreadCounters counters;
    INFO("unavailable: " << counters.unavailable());
    ThreadCounterSample a, b;

    // 64 fresh pages, each written once: at least 64 page faults (small pages: no THP).
    const size_t page = size_t(sysconf(_SC_PAGESIZE));
    void* map =
        mmap(nullptr, 64 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    REQUIRE(map != MAP_FAILED);
    madvise(map, 64 * page, MADV_NOHUGEPAGE);
    counters.read(a);
    for (size_t i = 0; i < 64; ++i) static_cast<volatile char*>(map)[i * page] = 1;
    counters.read(b);
    munmap(map, 64 * page);
    REQUIRE(read_both(a, b, ThreadCounter::page_faults));  // perf, else getrusage
    CHECK(delta(a, b, ThreadCounter::page_faults) >= 64);

    // A sleep blocks the thread: at least one voluntary switch.
    counters.read(a);
    usleep(2000);
    counters.read(b);
    REQUIRE(read_both(a, b, ThreadCounter::voluntary_switches));
    CHECK(delta(a, b, ThreadCounter::voluntary_switches) >= 1);

    // 3 ms of this thread's CPU time burnt: on-CPU time counts them (perf's task clock, else
    // the thread's CPU clock; both count the same ns, to a tick's rounding at most).
    counters.read(a);
    const int64_t start = thread_cpu_ns();
    volatile uint64_t sink = 0;
    while (thread_cpu_ns() - start < 3'000'000) sink = sink + 1;
    counters.read(b);
    REQUIRE(read_both(a, b, ThreadCounter::on_cpu_ns));
    CHECK(delta(a, b, ThreadCounter::on_cpu_ns) >= 2'900'000);

    // Moved from one CPU to another by its own affinity: a migration, where perf counts them.
    cpu_set_t allowed, one;
    REQUIRE(sched_getaffinity(0, sizeof allowed, &allowed) == 0);
    if (CPU_COUNT(&allowed) >= 2 && b.read[size_t(ThreadCounter::migrations)]) {
        int cpus[2] = {-1, -1};
        for (int c = 0, k = 0; c < CPU_SETSIZE && k < 2; ++c)
            if (CPU_ISSET(c, &allowed)) cpus[k++] = c;
        CPU_ZERO(&one);
        CPU_SET(cpus[0], &one);
        REQUIRE(sched_setaffinity(0, sizeof one, &one) == 0);
        counters.read(a);
        CPU_ZERO(&one);
        CPU_SET(cpus[1], &one);
        REQUIRE(sched_setaffinity(0, sizeof one, &one) == 0);
        counters.read(b);
        REQUIRE(sched_setaffinity(0, sizeof allowed, &allowed) == 0);
        CHECK(sched_getcpu() >= 0);
        CHECK(delta(a, b, ThreadCounter::migrations) >= 1);
    } else {
        WARN("migrations not checked: " << CPU_COUNT(&allowed)
                                        << " CPU(s) allowed, or perf does not count them here");
    }

    // What did not read is named, and why.
    for (size_t i = 0; i < kThreadCounters; ++i) {
        if (b.read[i]) continue;
        const std::string name = thread_counter_name(ThreadCounter(i));
        INFO(name);
        CHECK(counters.unavailable().find(name) != std::string::npos);
        CHECK(counters.unavailable().find(" not read") != std::string::npos);
    }
}
