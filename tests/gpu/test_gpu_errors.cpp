// Errors name the call, the device and the worker; impossible runs fail before anything is
// allocated, with the reason.
#ifdef XFER_HAVE_CUDA
#include <string>

#include "engine/cuda/cuda_errors.hpp"
#include "gpu_harness.hpp"
#include "support/catch.hpp"
#include "support/text.hpp"

using xfer::test::contains;

using namespace xfer;
using namespace xfer::gpu_test;

namespace {}  // namespace

TEST_CASE("a failed CUDA call names the call, device and worker", "[gpu][errors]") {
    CHECK(cuda::cuda_error_message(2, "cudaMemcpy(dst, src, n, kind)", 0, 2) ==
          "cudaMemcpy failed on device 0 (worker 2): out of memory (cudaErrorMemoryAllocation)");
    // A real failure: device memory far beyond any GPU, allocated by prepare() (check() would
    // have refused it first, as the next test shows).
    TransferSpec t =
        spec(Direction::d2d, HostMemoryKind::pageable, CopyApi::sync, StreamKind::per_thread);
    t.bytes = uint64_t(1) << 50;
    std::string msg = thrown_message([&] { cuda_backend().prepare(t, 0); });
    INFO(msg);
    CHECK(contains(msg, "cudaMalloc failed on device 0 (worker 0): "));
    CHECK(contains(msg, "(cudaErrorMemoryAllocation)"));
}

TEST_CASE("can_run() refuses impossible runs with the reason", "[gpu][errors]") {
    Backend& b = cuda_backend();
    const int n = device_count();
    TransferSpec t =
        spec(Direction::h2d, HostMemoryKind::pinned, CopyApi::sync, StreamKind::per_thread);
    t.devices = {n + 3};
    std::string msg = refused_reason(b, t, 1);
    INFO(msg);
    CHECK(contains(msg, "device " + std::to_string(n + 3)));

    t.devices.clear();
    t.bytes = uint64_t(1) << 50;  // 1 PiB per worker: the preflight against cudaMemGetInfo
    msg = refused_reason(b, t, 1);
    INFO(msg);
    CHECK(contains(msg, "device 0 needs"));
    CHECK(contains(msg, "free"));
    CHECK(b.memory_needed(t, 2).device_bytes == 2 * t.bytes);
    CHECK(b.memory_needed(t, 2).host_bytes >= 2 * t.bytes);

    TransferSpec p2p = t;
    p2p.direction = Direction::p2p;
    p2p.bytes = kSmall;
    p2p.devices = {0};
    msg = refused_reason(b, p2p, 1);
    INFO(msg);
    CHECK(contains(msg, "two devices"));
}
#endif  // XFER_HAVE_CUDA
