// Stray work seen only in the process's lists (issue 54, item 10): what a run left that nobody
// named is counted by a later run only where it took a share of the CPU, and xferlab's own
// threads are never taken for it.
#include <unistd.h>

#include "support/catch.hpp"
#include "support/text.hpp"
#include "system/process_work.hpp"
#include "system/stray_threads.hpp"

using namespace xfer;
using xfer::test::contains;

TEST_CASE("strays_during: work seen only counts where it took 5% of the run and 20 ms",
          "[system][stray]") {
    const StrayThread named{101, "spin", 0, false, false};
    const StrayThread seen{102, "python3", 0, true, true};
    const std::vector<StrayThreadNow> before{{named, 0}, {seen, 0}};
    // A 1 s run: the named thread counts whatever it did; the child process from 50 ms of CPU.
    const auto idle = strays_during(before, {{named, 0}, {seen, 49'000'000}}, 1'000'000'000);
    REQUIRE(idle.size() == 1);
    CHECK(idle[0].tid == 101);
    const auto busy = strays_during(before, {{named, 0}, {seen, 60'000'000}}, 1'000'000'000);
    REQUIRE(busy.size() == 2);
    CHECK(busy[1].process);
    CHECK(busy[1].cpu_ns == 60'000'000);
    CHECK(contains(describe_strays(busy),
                   "child process 'python3' (pid 102, left running by run 0; 0.06 s of CPU "
                   "during this run)"));
    // Below 20 ms, however short the run.
    CHECK(strays_during({{seen, 0}}, {{seen, 19'000'000}}, 100'000'000).empty());
}

TEST_CASE("work_left: what appeared during a run, xferlab's own threads aside",
          "[system][stray]") {
    WorkSnapshot start, end;
    start.units = {{10, false, "xferlab", 1, 0}};
    end.units = {{10, false, "xferlab", 1, 5},
                 {11, false, "xfer-omp-1", 2, 9},   // OpenMP's pool: xferlab's
                 {12, false, "xferlab", 3, 0},      // a payload's thread
                 {13, true, "python3", 4, 0}};      // a payload's child
    const auto left = work_left(start, end);
    REQUIRE(left.size() == 2);
    CHECK(left[0].id == 12);
    CHECK(left[1].id == 13);
    CHECK(left[1].process);
    CHECK(xferlab_thread_name("xfer-stage-3"));
    CHECK_FALSE(xferlab_thread_name("python3"));
}

TEST_CASE("process_work_now lists this process's threads but the caller", "[system][stray]") {
    const WorkSnapshot now = process_work_now();
    CHECK(now.taken_ns > 0);
    for (const WorkUnit& u : now.units) CHECK(u.id != int(gettid()));
}

// The CI failure it answers: a spinning leftover got no CPU in two gaps of a millisecond or two
// on a loaded machine, and no later run named it.
TEST_CASE("UnnamedWork: the first gap after work is left lasts 50 ms, later gaps as they come",
          "[system][stray]") {
    const auto at = [](int64_t ms, std::vector<WorkUnit> units) {
        return WorkSnapshot{ms * 1'000'000, std::move(units)};
    };
    const WorkUnit plan{10, false, "xferlab", 1, 0};
    const WorkUnit left{12, false, "python3", 3, 0};
    UnnamedWork work;
    // Run 0 leaves nothing: no gap is stretched.
    work.at_run_end(at(0, {plan}), at(100, {plan}), 0);
    CHECK(work.short_by(102'000'000) == 0);
    work.at_run_start(at(102, {plan}));
    // Run 1 leaves a thread: the gap after it is stretched to 50 ms from the run's end.
    work.at_run_end(at(102, {plan}), at(200, {plan, left}), 1);
    CHECK(work.short_by(202'000'000) == 48'000'000);
    CHECK(work.short_by(260'000'000) == 0);
    work.at_run_start(at(250, {plan, left}));  // idle in it: still watched
    // Judged over one gap: the next gap is not stretched, though the thread is still watched.
    work.at_run_end(at(250, {plan, left}), at(300, {plan, left}), 2);
    CHECK(work.short_by(301'000'000) == 0);
    // A thread left by a later run stretches the gap after that run again.
    const WorkUnit later{13, false, "python3", 4, 0};
    work.at_run_start(at(301, {plan, left}));
    work.at_run_end(at(301, {plan, left}), at(400, {plan, left, later}), 3);
    CHECK(work.short_by(410'000'000) == 40'000'000);
}
