// report/analysis/staging_helpers: the staging helpers' work summed per engine, and the sentence
// that says where their busy time went.
#include "report/analysis/staging_helpers.hpp"
#include "support/catch.hpp"
#include "support/text.hpp"

using namespace xfer;
using xfer::test::contains;

namespace {

HelperThread helper(const char* launcher, int64_t busy_ns, HelperWork work, int pid = 100) {
    HelperThread h;
    h.thread.launcher = launcher;
    h.thread.pid = pid;
    h.busy = {{1000, 1000 + busy_ns}};
    h.work = work;
    return h;
}

}  // namespace

TEST_CASE("staging helpers: work summed per engine, shares of busy time", "[report][staging]") {
    RunResult run;
    // Two helpers of device 0, each busy 1 ms: 600 us copying 3 MB, 20 us starting DMAs,
    // 300 us waiting; one of device 1 that never worked (left out).
    run.helper_threads = {
        helper("staging (device 0)", 1'000'000, {4, 3'000'000, 600'000, 20'000, 300'000}),
        helper("staging (device 0)", 1'000'000, {4, 3'000'000, 600'000, 20'000, 300'000}),
        helper("staging (device 1)", 0, {}),
    };
    const auto stats = staging_helpers_of(run);
    REQUIRE(stats.size() == 1);
    CHECK(stats[0].launcher == "staging (device 0)");
    CHECK(stats[0].helpers == 2);
    CHECK(stats[0].busy_ns == 2'000'000);
    CHECK(stats[0].work.chunks == 8);
    CHECK(stats[0].work.copied_bytes == 6'000'000);
    const auto lines = staging_helper_lines(stats);
    REQUIRE(lines.size() == 1);
    INFO(lines[0]);
    // 3 MB in 600 us = 5 GB/s per helper while copying; 60 % + 2 % + 30 % + 8 % taking work.
    CHECK(contains(lines[0], "staging (device 0): 2 helpers, 8 chunks"));
    CHECK(contains(lines[0], "copying 60% (5.00 GB/s per helper while copying)"));
    CHECK(contains(lines[0], "starting DMAs 2.0%"));
    CHECK(contains(lines[0], "waiting for DMAs 30%"));
    CHECK(contains(lines[0], "taking work 8.0%"));
    CHECK_FALSE(contains(lines[0], "processes"));
}

TEST_CASE("staging helpers: worker processes each run an engine", "[report][staging]") {
    RunResult run;
    for (int pid : {100, 100, 200, 200})
        run.helper_threads.push_back(
            helper("staging (device 0)", 1'000'000, {1, 4096, 1000, 10, 100}, pid));
    const auto stats = staging_helpers_of(run);
    REQUIRE(stats.size() == 1);
    CHECK(stats[0].helpers == 4);
    CHECK(stats[0].processes == 2);
    const auto lines = staging_helper_lines(stats);
    REQUIRE(lines.size() == 1);
    CHECK(contains(lines[0], "staging (device 0): 4 helpers in 2 processes (an engine each), 4 chunks"));
}

TEST_CASE("staging helpers: page-locked memory, and busy spans that were not all kept",
          "[report][staging]") {
    RunResult run;
    // No host copies; the spans kept (100 us) are shorter than the work accounted (300 us):
    // the shares are of the accounted time, never above 100 %.
    run.helper_threads = {helper("staging (device 0)", 100'000, {2, 0, 0, 100'000, 200'000})};
    const auto stats = staging_helpers_of(run);
    REQUIRE(stats.size() == 1);
    CHECK(stats[0].busy_ns == 300'000);
    const auto lines = staging_helper_lines(stats);
    REQUIRE(lines.size() == 1);
    INFO(lines[0]);
    CHECK(contains(lines[0], "no host copies"));
    CHECK(contains(lines[0], "waiting for DMAs 67%"));
    CHECK(contains(lines[0], "taking work 0.0%"));
}
