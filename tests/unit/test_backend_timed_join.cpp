// backend/cuda/cupti_join: a payload's w.timed() block carries its tag as correlation id; every
// CUPTI memcpy record aliased to it is listed as one of its device copies, and the block's
// device interval spans them all. Pure C++ (no device): runs wherever the CUDA backend compiles.
#include "support/catch.hpp"

#if XFER_HAVE_CUDA
#include "backend/cuda/cupti_join.hpp"

using namespace xfer;
using namespace xfer::cuda;

namespace {

MemcpyActivity activity(uint32_t runtime_id, uint64_t start, uint64_t end, uint64_t bytes) {
    MemcpyActivity a;
    a.runtime_correlation = runtime_id;
    a.correlation = runtime_id + 1000;
    a.start = start;
    a.end = end;
    a.bytes = bytes;
    a.device = 0;
    a.stream = 7;
    a.copy_kind = 1;  // HtoD
    a.src_kind = 1;   // pageable
    a.dst_kind = 3;   // device
    return a;
}

Record block(uint32_t tag, int repetition, int64_t start, int64_t end) {
    Record r;
    r.source = 1;
    r.device_calls = 2;
    r.correlation = tag;
    r.repetition = repetition;
    r.worker = 3;
    r.host_start_ns = start;
    r.host_end_ns = end;
    r.bytes = 300;
    return r;
}

}  // namespace

TEST_CASE("a timed block's device copies are listed and its interval spans them",
          "[backend][cupti][timed]") {
    std::vector<Record> records = {block(0xB0000000u, 0, 1000, 5000),
                                   block(0xB0000001u, 1, 6000, 9000),
                                   block(0xB0000002u, 2, 9500, 9900)};
    Record native;  // xferlab's own copy: the generic join, not this one
    native.correlation = 42;
    native.host_start_ns = 100;
    native.host_end_ns = 900;
    native.bytes = 10;
    records.push_back(native);

    TraceResult trace;
    // Block 0 made two copies (aliased to its tag by CudaBackend); block 1 one; block 2 none.
    trace.copies = {activity(0xB0000000u, 2000, 2500, 100), activity(0xB0000000u, 3000, 4000, 200),
                    activity(0xB0000001u, 7000, 8000, 300), activity(42, 200, 800, 10)};
    const TimedBlockJoin join = join_timed_blocks(records, trace, 0, /*offset_ns=*/5);
    CHECK(join.blocks == 3);
    CHECK(join.blocks_joined == 2);
    REQUIRE(join.copies.size() == 3);
    CHECK(join.copies[0].start_ns == 2005);
    CHECK(join.copies[1].end_ns == 4005);
    CHECK(join.copies[0].kind == "HtoD");
    CHECK(join.copies[0].src == "pageable");
    CHECK(join.copies[0].dst == "device");
    CHECK(join.copies[2].repetition == 1);
    CHECK(join.copies[2].worker == 3);
    CHECK(records[0].device_start_ns == 2005);  // first start ..
    CHECK(records[0].device_end_ns == 4005);    // .. last end
    CHECK(records[0].device_timing == DeviceTiming::cupti);
    CHECK(records[0].stream == 7);
    CHECK(records[2].device_timing == DeviceTiming::none);  // no device copy in the block
    CHECK(records[2].device_start_ns == -1);

    // The generic join leaves timed blocks alone: they are not "copies without a record".
    const JoinReport rep = join_device_times(records, trace, 0);
    CHECK(rep.eligible == 1);
    CHECK(rep.joined == 1);
    CHECK(rep.missing == 0);
}
#endif
