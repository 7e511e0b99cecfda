// The report's line for a run that shared its machine (report/host_activity.hpp).
#include "report/host_activity.hpp"
#include "support/catch.hpp"

using namespace xfer;

TEST_CASE("the report names a shared machine, and only then", "[report]") {
    RunResult run;
    CHECK_FALSE(host_activity_line(run));  // nothing recorded: nothing said
    run.host_activity = HostActivity{"copies", 1'000'000'000, 16, 6.4, 5.1, 1.3, 0.0};
    const auto line = host_activity_line(run);
    REQUIRE(line);
    CHECK(*line ==
          "shared machine: other processes kept 1.3 of 16 CPUs busy while the copies ran "
          "(xferlab 5.1), the hypervisor took 0.0% of CPU time (steal): the copies may have "
          "waited for CPUs or memory bandwidth they shared");
    run.host_activity->span = "run";  // worker processes: watched over the whole run
    REQUIRE(host_activity_line(run));
    CHECK(host_activity_line(run)->find("busy while the run's workers ran (buffers prepared "
                                        "and copies made)") != std::string::npos);
    run.host_activity->others_cpus = 0.2;
    CHECK_FALSE(host_activity_line(run));
    run.host_activity->steal_fraction = 0.02;  // steal alone is enough
    CHECK(host_activity_line(run));
}
