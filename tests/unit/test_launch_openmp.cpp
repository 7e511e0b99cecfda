// The OpenMP launcher runs the same worker loop: the same records (fields and counts) as the
// host launcher, its own threads' attributes read back, and the calling thread left as it was.
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <unistd.h>

#include <cstdlib>

#include "launch/openmp_team.hpp"
#include "system/thread_info.hpp"
#include "support/catch.hpp"
#include "system/signal_names.hpp"
#include "system/thread_probe.hpp"
#include "test_launch_support.hpp"

using namespace xfer;
using xfer::test::LaunchHarness;

TEST_CASE("openmp produces the same record fields and counts as host", "[launch]") {
    LaunchHarness host(3, 4, 2), omp(3, 4, 2);
    host.launch("host");
    omp.launch("openmp");
    REQUIRE(host.errors.empty());
    REQUIRE(omp.errors.empty());
    REQUIRE(omp.workers.size() == host.workers.size());
    for (size_t i = 0; i < host.workers.size(); ++i) {
        const auto& a = host.workers[i]->records();
        const auto& b = omp.workers[i]->records();
        REQUIRE(a.size() == b.size());
        for (size_t k = 0; k < a.size(); ++k) {
            CHECK(b[k].run == a[k].run);
            CHECK(b[k].worker == a[k].worker);
            CHECK(b[k].repetition == a[k].repetition);
            CHECK(b[k].warmup == a[k].warmup);
            CHECK(b[k].bytes == a[k].bytes);
            CHECK(b[k].device == a[k].device);
            CHECK(b[k].host_end_ns >= b[k].host_start_ns);
            CHECK(b[k].tid == omp.info(int(i)).tid);
            CHECK(b[k].pid == a[k].pid);
        }
        CHECK(omp.workers[i]->transfer().verify() == -1);
        CHECK(omp.info(int(i)).launcher == "openmp");
        CHECK(omp.info(int(i)).worker == int(i));
    }
    // Three distinct threads, worker 0 being the calling thread, as in any OpenMP program.
    CHECK(omp.info(0).tid == gettid());
    CHECK(omp.info(1).tid != omp.info(0).tid);
    CHECK(omp.info(2).tid != omp.info(1).tid);
}

TEST_CASE("openmp threads get the mask and affinity asked for and the caller gets its own back",
          "[launch]") {
    if (std::getenv("OMP_PROC_BIND") || std::getenv("OMP_PLACES")) {
        WARN("OMP_PROC_BIND/OMP_PLACES set: OpenMP binds, affinity is not the launcher's");
        return;
    }
    const ThreadInfo before = capture_thread_info("main", -1);
    LaunchHarness h(2, 2, 0);
    h.run.settings.threads.signal_mask = {SignalMaskKind::list, {SIGUSR1, SIGUSR2}};
    h.run.settings.threads.affinity = {AffinityKind::list, {0}};
    h.run.settings.threads.policy = {SchedPolicy::batch, 0};
    h.launch("openmp");
    REQUIRE(h.errors.empty());
    for (int i = 0; i < 2; ++i) {
        CHECK(h.info(i).blocked_signals == std::vector<int>{SIGUSR1, SIGUSR2});
        CHECK(h.info(i).cpus == std::vector<int>{0});
        CHECK(h.info(i).policy == "batch");
        CHECK(h.info(i).name == "xfer-omp-" + std::to_string(i));
    }
    const ThreadInfo after = capture_thread_info("main", -1);
    CHECK(thread_info_differences(before, after).empty());
    CHECK(after.name == before.name);

    // The pool threads are reused: "inherit" and "none" must undo what the last run left.
    LaunchHarness again(2, 1, 0);
    again.launch("openmp");
    REQUIRE(again.errors.empty());
    CHECK(again.info(1).blocked_signals == before.blocked_signals);
    CHECK(again.info(1).cpus == before.cpus);
    CHECK(again.info(1).policy == "other");
}

TEST_CASE("openmp says that a stack size is OMP_STACKSIZE's business", "[launch]") {
    LaunchHarness h(2, 1, 0);
    h.run.settings.threads.stack_size = 256 << 10;
    h.launch("openmp");
    REQUIRE(h.errors.empty());
    bool noted = false;
    for (const auto& n : h.notes) noted |= n.find("OMP_STACKSIZE") != std::string::npos;
    CHECK(noted);
    // What the threads really got is recorded either way.
    CHECK(h.info(1).stack_size > 0);
}

TEST_CASE("a failing openmp worker is reported and the others are released", "[launch]") {
    LaunchHarness h(2, 2, 0);
    h.run.settings.threads.affinity = {AffinityKind::list, {CPU_SETSIZE + 1}};
    if (std::getenv("OMP_PROC_BIND") || std::getenv("OMP_PLACES")) return;
    h.launch("openmp");
    REQUIRE(h.errors.size() == 2);
    CHECK(h.errors[0].find("is out of range") != std::string::npos);
    for (const auto& w : h.workers) CHECK(w->copies_done() == 0);
}

TEST_CASE("openmp_stack_size reads OMP_STACKSIZE as libgomp does, then GOMP_STACKSIZE",
          "[launch][openmp]") {
    // The probe before a region (launch/openmp_team.hpp) must start threads with the stack
    // libgomp will give its own.
    const char* saved = std::getenv("OMP_STACKSIZE");
    const std::string kept = saved ? saved : "";
    const auto with = [](const char* value) {
        if (value)
            setenv("OMP_STACKSIZE", value, 1);
        else
            unsetenv("OMP_STACKSIZE");
        return openmp_stack_size();
    };
    unsetenv("GOMP_STACKSIZE");
    CHECK(with("4096") == 4096u * 1024);  // no suffix: KiB
    CHECK(with("8M") == 8u * 1024 * 1024);
    CHECK(with("512 k") == 512u * 1024);
    CHECK(with("1g") == 1024u * 1024 * 1024);
    CHECK(with("65536B") == 65536u);
    CHECK(with("lots") == 0u);  // unreadable: libgomp's default, as with none
    CHECK(with(nullptr) == 0u);
    setenv("GOMP_STACKSIZE", "2M", 1);
    CHECK(with(nullptr) == 2u * 1024 * 1024);
    unsetenv("GOMP_STACKSIZE");
    if (saved)
        setenv("OMP_STACKSIZE", kept.c_str(), 1);
    else
        unsetenv("OMP_STACKSIZE");
    // Where threads can start, a team needs no refusal.
    CHECK(openmp_team_problem(4).empty());
}
