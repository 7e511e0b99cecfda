// Device-side timing: CUDA events around async copies, CUPTI records for every copy, nothing
// for timing = "host"; and what the run's notes say about each.
#ifdef XFER_HAVE_CUDA
#include <string>

#include "gpu_harness.hpp"
#include "support/catch.hpp"

using namespace xfer;
using namespace xfer::gpu_test;

namespace {

bool any_note_contains(const RunOutcome& run, const std::string& text) {
    for (const auto& n : run.notes)
        if (n.find(text) != std::string::npos) return true;
    return false;
}

}  // namespace

TEST_CASE("timing = events: async copies carry event durations inside their host calls",
          "[gpu][timing]") {
    Backend& b = cuda_backend();
    for (Direction d : {Direction::h2d, Direction::d2h, Direction::d2d}) {
        for (StreamKind s :
             {StreamKind::legacy, StreamKind::per_thread, StreamKind::non_blocking}) {
            TransferSpec t = spec(d, HostMemoryKind::pinned, CopyApi::async, s, TimingMode::events);
            RunOutcome run = run_copies(b, t, 2);
            INFO(describe(t));
            INFO(joined(run.errors));
            REQUIRE(run.errors.empty());
            for (int64_t m : run.mismatch) CHECK(m == -1);
            for (const auto& r : run.records) {
                CHECK(r.device_timing == DeviceTiming::events);
                CHECK(r.correlation == 0);  // no CUPTI with timing = events
                CHECK(r.device_duration_ns() > 0);
                // The end is anchored when the host saw the stream finish: inside the call.
                CHECK(r.device_end_ns <= r.host_end_ns);
                CHECK(r.device_start_ns >= r.host_start_ns - kClockToleranceNs);
                CHECK(r.device_duration_ns() <= r.host_duration_ns() + kClockToleranceNs);
            }
        }
    }
}

TEST_CASE("timing = events with api = sync: host times only, and the notes say why",
          "[gpu][timing]") {
    TransferSpec t = spec(Direction::h2d, HostMemoryKind::pinned, CopyApi::sync,
                          StreamKind::per_thread, TimingMode::events);
    RunOutcome run = run_copies(cuda_backend(), t, 1);
    REQUIRE(run.errors.empty());
    for (const auto& r : run.records) CHECK(r.device_timing == DeviceTiming::none);
    INFO(joined(run.notes));
    CHECK(any_note_contains(run, "api = \"sync\" copies have host times only"));
}

TEST_CASE("timing = host: no device times, no correlation ids", "[gpu][timing]") {
    TransferSpec t = spec(Direction::h2d, HostMemoryKind::pinned, CopyApi::async,
                          StreamKind::non_blocking, TimingMode::host);
    RunOutcome run = run_copies(cuda_backend(), t, 2);
    REQUIRE(run.errors.empty());
    for (int64_t m : run.mismatch) CHECK(m == -1);
    for (const auto& r : run.records) {
        CHECK(r.device_timing == DeviceTiming::none);
        CHECK(r.correlation == 0);
        CHECK(r.device_start_ns == -1);
    }
}

TEST_CASE("timing = auto uses CUPTI, the notes count the joined copies", "[gpu][timing]") {
    TransferSpec t = spec(Direction::h2d, HostMemoryKind::pageable, CopyApi::sync,
                          StreamKind::per_thread, TimingMode::auto_);
    t.repetitions = 5;
    RunOutcome run = run_copies(cuda_backend(), t, 4);
    INFO(joined(run.notes));
    REQUIRE(run.errors.empty());
    for (const auto& r : run.records) CHECK(r.device_timing == DeviceTiming::cupti);
    CHECK(any_note_contains(run, "CUPTI: 24 of 24 copies joined"));
    CHECK_FALSE(any_note_contains(run, "dropped"));
}

TEST_CASE("CUPTI tracing is bracketed by the run: copies outside it carry no ids",
          "[gpu][timing]") {
    Backend& b = cuda_backend();
    TransferSpec t = spec(Direction::d2h, HostMemoryKind::pinned, CopyApi::async,
                          StreamKind::per_thread, TimingMode::cupti);
    auto transfer = b.prepare(t, 0);
    transfer->attach_thread();  // this (main) thread acts as the worker
    // Not between begin_run and end_run: the copy is not traced.
    CopyOutcome before = transfer->copy();
    b.begin_run(t);
    CopyOutcome during = transfer->copy();
    std::vector<Record> records(1);
    records[0].pid = 0;
    records[0].bytes = t.bytes;
    records[0].correlation = during.correlation;
    records[0].host_start_ns = 0;
    records[0].host_end_ns = INT64_MAX / 2;
    CHECK(b.end_run(records).failure.empty());
    CHECK(before.correlation == 0);
    CHECK(during.correlation != 0);
    CHECK(records[0].device_timing == DeviceTiming::cupti);
    CHECK(records[0].device_duration_ns() > 0);
    CHECK(transfer->verify() == -1);
}
#endif  // XFER_HAVE_CUDA
