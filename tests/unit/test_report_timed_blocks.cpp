// report/analysis/timed_blocks: a payload's w.timed() blocks summarised per label from the records
// and their device copies, and the sentences the report prints about them.
#include "report/analysis/timed_blocks.hpp"
#include "support/catch.hpp"
#include "support/text.hpp"

using namespace xfer;
using xfer::test::contains;

namespace {

Record block(int worker, uint32_t tag, int64_t host_end, int64_t device_end, int held) {
    Record r;
    r.worker = worker;
    r.source = 1;
    r.correlation = tag;
    r.host_start_ns = 0;
    r.host_end_ns = host_end;
    r.device_start_ns = 10;
    r.device_end_ns = device_end;
    r.device_timing = DeviceTiming::cupti;
    r.device_calls = 2;
    r.gil_held_calls = int16_t(held);
    return r;
}

DeviceCopy copy(uint32_t tag, const char* src) {
    DeviceCopy c;
    c.correlation = tag;
    c.kind = "HtoD";
    c.src = src;
    c.dst = "device";
    return c;
}

}  // namespace

TEST_CASE("timed blocks: kinds, GIL evidence, early returns and the payload's checks",
          "[report][timed]") {
    RunResult run;
    run.copy_sources = {"torch copy_"};
    run.records = {block(0, 1, 1000, 900, 0), block(0, 2, 1000, 1250, 1), block(1, 3, 1000, 1300, 0)};
    run.records[2].warmup = true;
    Record untraced_none = block(1, 4, 1000, -1, 0);  // no device copy in this block
    untraced_none.device_timing = DeviceTiming::none;
    untraced_none.device_calls = 0;
    run.records.push_back(untraced_none);
    run.device_copies = {copy(1, "pageable"), copy(1, "pageable"), copy(2, "pinned"),
                         copy(3, "pageable")};
    run.payload_verified = {{0, "torch.equal on the device"}};

    const TimedBlocks t = timed_blocks_of(run);
    REQUIRE(t.labels.size() == 1);
    const TimedBlockStats& s = t.labels[0];
    CHECK(s.blocks == 4);
    CHECK(s.warmup == 1);
    CHECK(s.traced == 4);
    CHECK(s.with_device_copy == 3);
    CHECK(s.device_copies == 4);
    CHECK(s.calls == 6);
    CHECK(s.gil_held_calls == 1);
    CHECK(s.returned_early == 2);
    CHECK(s.max_overhang_ns == 300);
    CHECK(s.kinds.at("HtoD pageable->device") == 3);
    CHECK(s.kinds.at("HtoD pinned->device") == 1);

    const auto lines = timed_block_lines(t);
    REQUIRE(lines.size() == 2);
    CHECK(lines[0] ==
          "timed blocks 'torch copy_': 4 (1 warm-up); 4 device copies joined (3 HtoD "
          "pageable->device, 1 HtoD pinned->device); 1 of 4 blocks issued no device copy; 2 of 3 "
          "blocks returned before their device copies ended (by up to 300 ns): they time the "
          "call, not the bytes' arrival; GIL held in 1 of 6 memcpy calls");
    CHECK(lines[1] == "timed blocks' bytes verified by the payload for 1 of 2 workers (torch.equal "
                      "on the device)");
}

TEST_CASE("timed blocks: untraced blocks say so, no timed blocks, no lines", "[report][timed]") {
    RunResult run;
    run.copy_sources = {"numpy"};
    Record r;
    r.source = 1;  // device_calls -1: no tracer
    run.records = {r};
    const auto lines = timed_block_lines(timed_blocks_of(run));
    REQUIRE(lines.size() == 2);
    CHECK(contains(lines[0], "device copies not traced here (no CUPTI tracer: host backend)"));
    CHECK(lines[1] == "timed blocks' bytes not verified: the payload did not check them "
                      "(w.verified)");
    CHECK(timed_block_lines(timed_blocks_of(RunResult{})).empty());
}
