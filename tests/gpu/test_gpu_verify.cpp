// Verification proves bytes arrived: a destination nobody copied into fails, one flipped byte
// is found at its offset, and every first-touch policy still delivers the source's bytes.
#ifdef XFER_HAVE_CUDA
#include "gpu_harness.hpp"
#include "support/catch.hpp"

using namespace xfer;
using namespace xfer::gpu_test;

TEST_CASE("a poisoned destination without a copy fails verification", "[gpu][verify]") {
    Backend& b = cuda_backend();
    for (Direction d : {Direction::h2d, Direction::d2h, Direction::d2d, Direction::h2h}) {
        for (HostMemoryKind m : {HostMemoryKind::pageable, HostMemoryKind::pinned}) {
            TransferSpec t = spec(d, m, CopyApi::sync, StreamKind::per_thread);
            t.first_touch = FirstTouch::main;
            INFO(describe(t));
            auto transfer = b.prepare(t, 0);
            transfer->poison_destination();
            CHECK(transfer->verify() != -1);
        }
    }
}

TEST_CASE("verification finds one flipped byte at its offset", "[gpu][verify]") {
    Backend& b = cuda_backend();
    for (Direction d : {Direction::h2d, Direction::d2h, Direction::d2d, Direction::h2h}) {
        TransferSpec t = spec(d, HostMemoryKind::pinned, CopyApi::async, StreamKind::non_blocking);
        INFO(describe(t));
        auto transfer = b.prepare(t, 1);
        transfer->poison_destination();
        transfer->attach_thread();  // this thread acts as the worker
        transfer->copy();
        REQUIRE(transfer->verify() == -1);
        // Past the first 64 MiB staging chunk would need bigger buffers; an odd offset in the
        // middle and the last byte exercise the word-wise compare and the tail.
        transfer->corrupt_destination_for_test(4'194'309);
        CHECK(transfer->verify() == 4'194'309);
        transfer->corrupt_destination_for_test(4'194'309);  // flip back
        transfer->corrupt_destination_for_test(t.bytes - 1);
        CHECK(transfer->verify() == int64_t(t.bytes - 1));
    }
}

TEST_CASE("device buffers larger than one staging chunk verify across chunk boundaries",
          "[gpu][verify]") {
    Backend& b = cuda_backend();
    TransferSpec t =
        spec(Direction::d2d, HostMemoryKind::pageable, CopyApi::sync, StreamKind::per_thread);
    t.bytes = (uint64_t(64) << 20) * 2 + 12345;  // two full chunks and an odd tail
    auto transfer = b.prepare(t, 3);
    transfer->poison_destination();
    transfer->attach_thread();
    transfer->copy();
    REQUIRE(transfer->verify() == -1);
    const uint64_t at = (uint64_t(64) << 20) + 7;  // inside the second chunk
    transfer->corrupt_destination_for_test(at);
    CHECK(transfer->verify() == int64_t(at));
}

TEST_CASE("every first-touch policy delivers the source's bytes", "[gpu][verify]") {
    Backend& b = cuda_backend();
    for (FirstTouch ft : {FirstTouch::worker, FirstTouch::main, FirstTouch::none}) {
        for (Direction d : {Direction::h2d, Direction::d2h, Direction::h2h}) {
            for (HostMemoryKind m :
                 {HostMemoryKind::pageable, HostMemoryKind::registered, HostMemoryKind::pinned}) {
                TransferSpec t = spec(d, m, CopyApi::sync, StreamKind::per_thread);
                t.first_touch = ft;
                INFO(describe(t));
                RunOutcome run = run_copies(b, t, 2);
                INFO(joined(run.errors));
                REQUIRE(run.errors.empty());
                for (int64_t mm : run.mismatch) CHECK(mm == -1);
                if (d != Direction::h2h)  // host-to-host copies may have no CUPTI record
                    for (const auto& r : run.records) CHECK(r.device_timing == DeviceTiming::cupti);
            }
        }
    }
}

TEST_CASE("workers are spread round-robin, or over transfer.devices", "[gpu][verify]") {
    Backend& b = cuda_backend();
    const int n = device_count();
    TransferSpec t =
        spec(Direction::h2d, HostMemoryKind::pinned, CopyApi::sync, StreamKind::per_thread);
    RunOutcome run = run_copies(b, t, 3);
    REQUIRE(run.errors.empty());
    for (int i = 0; i < 3; ++i) CHECK(run.devices[size_t(i)] == i % n);
    for (const auto& r : run.records) CHECK(r.device == r.worker % n);
    t.devices = {n - 1};
    run = run_copies(b, t, 2);
    REQUIRE(run.errors.empty());
    for (int dev : run.devices) CHECK(dev == n - 1);
}
#endif  // XFER_HAVE_CUDA
