// report/analysis/gap_stages: the gaps taken apart from the records' gap stamps and counters:
// the stages between consecutive stamps (a missing mark merges its two stages), over the gaps
// before measured copies only, and the full report's lines.
#include "report/analysis/gap_stages.hpp"
#include "support/catch.hpp"
#include "support/text.hpp"

using namespace xfer;
using xfer::test::contains;

namespace {

// A copy of worker 0 from `start` to start + 1000 ns; its gap stamps `attached`, `python` and
// `entry` ns after the previous return (-1: not taken).
Record copy_at(int64_t start, int64_t previous_end, int64_t attached, int64_t python,
               int64_t entry) {
    Record r;
    r.host_start_ns = start;
    r.host_end_ns = start + 1000;
    if (attached >= 0) r.gap.attached_ns = previous_end + attached;
    if (python >= 0) r.gap.python_ns = previous_end + python;
    if (entry >= 0) r.gap.entry_ns = previous_end + entry;
    return r;
}

}  // namespace

TEST_CASE("gap stages: each between two consecutive stamps, over the measured copies' gaps",
          "[report][gap]") {
    RunResult run;
    // Warm-up at 0 (its gap stamps ignored: it has no gap before it), then three measured
    // copies 10 us apart whose gaps run: attached after 1, 2, 3 us; python 2 us later; entry
    // 1 us later; start at 10 us.
    run.records.push_back(copy_at(0, 0, 5, 6, 7));
    run.records[0].warmup = true;
    int64_t end = 1000;
    for (int k = 1; k <= 3; ++k) {
        const int64_t start = end + 10'000;
        run.records.push_back(copy_at(start, end, 1000 * k, 1000 * k + 2000, 1000 * k + 3000));
        end = start + 1000;
    }
    const GapStageStats g = gap_stages_of(run);
    CHECK(g.staged_gaps == 3);
    CHECK(g.counted_gaps == 0);
    REQUIRE(g.stages.size() == 4);
    CHECK(g.stages[0].first == "return>attached");
    CHECK(g.stages[0].second.p50 == 2000);
    CHECK(g.stages[0].second.n == 3);
    CHECK(g.stages[1].first == "attached>python");
    CHECK(g.stages[1].second.p50 == 2000);
    CHECK(g.stages[2].first == "python>entry");
    CHECK(g.stages[2].second.p90 == 1000);
    CHECK(g.stages[3].first == "entry>start");
    CHECK(g.stages[3].second.p50 == 10'000 - 5000);  // 10 us - (2 us + 3 us)
    const auto lines = gap_stage_lines(g);
    REQUIRE(lines.size() == 1);
    CHECK(lines[0] ==
          "gap stages over 3 gaps, p50 (p90): return to attached 2 us (2.8 us); attached to "
          "python 2 us (2 us); python to entry 1 us (1 us); entry to start 5 us (5.8 us)");

    // Without the payload's mark, attached runs to entry in one stage.
    for (Record& r : run.records) r.gap.python_ns = -1;
    const GapStageStats unmarked = gap_stages_of(run);
    REQUIRE(unmarked.stages.size() == 3);
    CHECK(unmarked.stages[1].first == "attached>entry");
    CHECK(unmarked.stages[1].second.p50 == 3000);
}

TEST_CASE("gap counters: times as p50 and p90, events as the gaps that had any", "[report][gap]") {
    RunResult run;
    int64_t end = 0;
    for (int k = 0; k < 5; ++k) {
        Record r = copy_at(end + 5000, end, -1, -1, -1);
        end = r.host_end_ns;
        if (k == 0) {  // a worker's first copy: no gap, its counters left out
            r.gap.counters[size_t(ThreadCounter::involuntary_switches)] = 9;
        } else {
            r.gap.counters[size_t(ThreadCounter::on_cpu_ns)] = uint32_t(1000 * k);
            r.gap.counters[size_t(ThreadCounter::involuntary_switches)] = k == 4 ? 1 : 0;
            r.gap.counters[size_t(ThreadCounter::page_faults)] = uint32_t(k);
        }
        run.records.push_back(r);
    }
    const GapStageStats g = gap_stages_of(run);
    CHECK(g.staged_gaps == 0);
    CHECK(g.counted_gaps == 4);
    REQUIRE(g.counters[size_t(ThreadCounter::involuntary_switches)]);
    CHECK(g.counters[size_t(ThreadCounter::involuntary_switches)]->nonzero == 1);
    CHECK_FALSE(g.counters[size_t(ThreadCounter::cycles)]);
    const auto lines = gap_stage_lines(g);
    REQUIRE(lines.size() == 1);
    CHECK(lines[0] ==
          "gap counters over 4 gaps: on_cpu_ns p50 2.5 us (p90 3.7 us); involuntary_switches in "
          "1 of 4 gaps; page_faults p50 2 (p90 4; in 4 of 4 gaps)");
    // Switches in two gaps of four: their p90 reaches 1, and both figures are printed.
    run.records[3].gap.counters[size_t(ThreadCounter::involuntary_switches)] = 1;
    CHECK(contains(gap_stage_lines(gap_stages_of(run))[0],
                   "; involuntary_switches p50 0 (p90 1; in 2 of 4 gaps); "));
    CHECK(gap_stage_lines(GapStageStats{}).empty());
}
