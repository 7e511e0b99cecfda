// The machine's CPU activity around a run (system/cpu_activity.hpp): /proc/stat parsed, the
// arithmetic of a window, and the probe's own and others' CPU time measured against CPU time
// burnt on purpose, by this process and by a child that is not reaped until the probe stops.
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <csignal>

#include "support/catch.hpp"
#include "system/cpu_activity.hpp"

using namespace xfer;

namespace {

double cpu_seconds(clockid_t clock) {
    timespec t{};
    clock_gettime(clock, &t);
    return double(t.tv_sec) + double(t.tv_nsec) * 1e-9;
}

// Burns `seconds` of the calling process's CPU time (not wall time: a loaded machine only
// makes it take longer).
void burn_cpu(double seconds) {
    const double start = cpu_seconds(CLOCK_PROCESS_CPUTIME_ID);
    volatile uint64_t sink = 0;
    while (cpu_seconds(CLOCK_PROCESS_CPUTIME_ID) - start < seconds) sink = sink + 1;
}

}  // namespace

TEST_CASE("/proc/stat: the aggregate cpu line, short lines of old kernels, none", "[system]") {
    const auto t =
        parse_proc_stat("cpu  10 1 5 1000 7 2 3 40 0 0\ncpu0 5 0 2 500 3 1 1 20 0 0\nintr 1 2\n");
    REQUIRE(t);
    CHECK(t->user == 10);
    CHECK(t->idle == 1000);
    CHECK(t->steal == 40);
    CHECK(t->busy() == 10 + 1 + 5 + 2 + 3);
    CHECK(t->total() == 21 + 1000 + 7 + 40);
    const auto old = parse_proc_stat("cpu  10 1 5 1000\n");
    REQUIRE(old);
    CHECK(old->steal == 0);
    CHECK_FALSE(parse_proc_stat("cpu0 1 2 3 4\n"));
    CHECK_FALSE(parse_proc_stat("cpu  1 2\n"));
}

TEST_CASE("a window: busy CPUs, xferlab's share, the others' and steal", "[system]") {
    CpuTicks before{100, 0, 50, 1000, 0, 0, 0, 10};
    CpuTicks after = before;
    after.user += 300;  // 3 s of CPU time at 100 ticks a second
    after.system += 100;
    after.idle += 500;
    after.steal += 100;
    const HostActivity a =
        host_activity_between(before, after, 1'500'000'000, 2'000'000'000, 8, 100);
    CHECK(a.busy_cpus == Approx(2.0));  // 4 s busy in 2 s
    CHECK(a.own_cpus == Approx(0.75));  // 1.5 s of it ours
    CHECK(a.others_cpus == Approx(1.25));
    CHECK(a.steal_fraction == Approx(100.0 / 1000.0));
    CHECK(a.cpus == 8);
    // More own time than the machine counted busy (tick granularity): others are 0, not less.
    CHECK(host_activity_between(before, after, 5'000'000'000, 2'000'000'000, 8, 100).others_cpus ==
          0);
}

TEST_CASE("a window between samples: the last before it to the first after it", "[system]") {
    std::vector<CpuSample> samples;
    for (int k = 0; k <= 10; ++k) {  // every 100 ms: 1 tick busy per sample, ours half of it
        CpuTicks t;
        t.user = uint64_t(10 * k);
        t.idle = uint64_t(30 * k);
        samples.push_back(CpuSample{int64_t(k) * 100'000'000, t, int64_t(k) * 50'000'000});
    }
    // 250-480 ms lies between the samples at 200 and 500 ms.
    const auto a = activity_over(samples, 250'000'000, 480'000'000, "copies");
    REQUIRE(a);
    CHECK(a->span == "copies");
    CHECK(a->window_ns == 300'000'000);
    CHECK(a->own_cpus == Approx(0.5));
    CHECK(a->busy_cpus == Approx(30.0 / 100.0 / 0.3));  // 30 ticks at 100 Hz in 0.3 s
    // Outside the samples: the first and last ones.
    CHECK(activity_over(samples, -5, 2'000'000'000, "run")->window_ns == 1'000'000'000);
    CHECK_FALSE(activity_over({samples[0]}, 0, 1, "run"));
}

TEST_CASE("the sampler counts CPU time burnt here as xferlab's and a child's as another's",
          "[system]") {
    int done[2];
    REQUIRE(pipe(done) == 0);
    HostActivitySampler sampler(5'000'000);
    const pid_t child = fork();
    REQUIRE(child >= 0);
    if (child == 0) {
        burn_cpu(0.3);
        const char byte = 1;
        (void)!write(done[1], &byte, 1);
        pause();  // stays unreaped (its time not yet in RUSAGE_CHILDREN) until killed
        _exit(0);
    }
    burn_cpu(0.3);
    char byte = 0;
    REQUIRE(read(done[0], &byte, 1) == 1);
    const auto samples = sampler.stop();
    kill(child, SIGKILL);
    waitpid(child, nullptr, 0);
    close(done[0]);
    close(done[1]);
    REQUIRE(samples.size() >= 2);
    for (size_t i = 1; i < samples.size(); ++i) CHECK(samples[i].t_ns >= samples[i - 1].t_ns);
    const auto activity = activity_over(samples, samples.front().t_ns, samples.back().t_ns, "run");
    REQUIRE(activity);
    const double window_s = double(activity->window_ns) * 1e-9;
    INFO("window " << window_s << " s, busy " << activity->busy_cpus << ", own "
                   << activity->own_cpus << ", others " << activity->others_cpus << ", "
                   << samples.size() << " samples");
    CHECK(activity->own_cpus * window_s >= 0.29);
    // /proc/stat counts in ticks (10 ms) per CPU: allow a few on each side.
    CHECK(activity->others_cpus * window_s >= 0.2);
    CHECK(activity->cpus >= 1);
}
