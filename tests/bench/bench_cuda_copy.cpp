// Benchmark (not a test): the CUDA backend's copy routine against a bare loop, in one process.
//   1. Pinned 1 GiB H2D: xferlab's Worker::copy_once (async api, host clock around the call,
//      which includes the stream synchronize) vs a bare cudaMemcpyAsync loop timed with CUDA
//      events on the same buffers. Ratio of medians.
//   2. CUPTI cost: 64 MiB pinned H2D copies through xferlab with timing = host vs timing = cupti,
//      blocks interleaved, ratio of median per-copy host time.
// Usage: bench_cuda_copy [repetitions]   (prints a table; docs/performance.md has the numbers)
#include <cuda_runtime.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "backend/backend.hpp"
#include "launch/worker.hpp"

using namespace xfer;

namespace {

#define CHECK_CUDA(call)                                                            \
    do {                                                                            \
        cudaError_t e_ = (call);                                                    \
        if (e_ != cudaSuccess) {                                                    \
            std::fprintf(stderr, "%s failed: %s\n", #call, cudaGetErrorString(e_)); \
            std::exit(1);                                                           \
        }                                                                           \
    } while (0)

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Bare loop: cudaMemcpyAsync on a non-blocking stream, timed with events. Milliseconds per copy.
std::vector<double> bare_event_loop(size_t bytes, int reps) {
    void* host = nullptr;
    void* dev = nullptr;
    CHECK_CUDA(cudaMallocHost(&host, bytes));
    CHECK_CUDA(cudaMalloc(&dev, bytes));
    std::memset(host, 1, bytes);
    cudaStream_t s;
    CHECK_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    cudaEvent_t a, b;
    CHECK_CUDA(cudaEventCreate(&a));
    CHECK_CUDA(cudaEventCreate(&b));
    std::vector<double> ms;
    for (int i = 0; i < reps + 2; ++i) {  // 2 warm-up copies
        CHECK_CUDA(cudaEventRecord(a, s));
        CHECK_CUDA(cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, s));
        CHECK_CUDA(cudaEventRecord(b, s));
        CHECK_CUDA(cudaStreamSynchronize(s));
        float t = 0;
        CHECK_CUDA(cudaEventElapsedTime(&t, a, b));
        if (i >= 2) ms.push_back(t);
    }
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    cudaStreamDestroy(s);
    cudaFree(dev);
    cudaFreeHost(host);
    return ms;
}

TransferSpec pinned_h2d(uint64_t bytes, TimingMode timing) {
    TransferSpec t;
    t.direction = Direction::h2d;
    t.bytes = bytes;
    t.host_memory.kind = HostMemoryKind::pinned;
    t.first_touch = FirstTouch::main;
    t.api = CopyApi::async;
    t.stream = StreamKind::non_blocking;
    t.timing = timing;
    t.devices = {0};
    t.repetitions = 1;
    t.warmup = 0;
    t.verify = false;
    return t;
}

// Per-copy host time (ms) of `reps` copies through Worker::copy_once, after 2 warm-ups.
std::vector<double> xferlab_loop(Backend& backend, const TransferSpec& t, int reps) {
    Worker w(0, 0, backend.prepare(t, 0), reps, 2);
    w.enter_thread("bench");
    backend.begin_run(t);
    for (int i = 0; i < reps + 2; ++i) w.copy_once();
    (void)backend.end_run(w.records());
    std::vector<double> ms;
    for (const auto& r : w.records())
        if (!r.warmup) ms.push_back(r.host_duration_ns() * 1e-6);
    return ms;
}

}  // namespace

int main(int argc, char** argv) {
    int reps = argc > 1 ? std::atoi(argv[1]) : 20;
    std::string note;
    std::unique_ptr<Backend> backend;
    try {
        backend = make_backend("cuda", &note);
    } catch (const std::exception& e) {
        std::printf("SKIPPED: %s\n", e.what());
        return 77;
    }
    cudaDeviceProp prop{};
    CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
    std::printf("device 0: %s\n", prop.name);

    const size_t gib = 1ull << 30;
    auto bare = bare_event_loop(gib, reps);
    auto ours = xferlab_loop(*backend, pinned_h2d(gib, TimingMode::host), reps);
    double bare_ms = median(bare), ours_ms = median(ours);
    std::printf("\n1 GiB pinned H2D, %d copies each (median per copy)\n", reps);
    std::printf("  bare cudaMemcpyAsync, events : %8.3f ms  %6.2f GB/s\n", bare_ms,
                gib / bare_ms / 1e6);
    std::printf("  xferlab copy_once, host clock: %8.3f ms  %6.2f GB/s\n", ours_ms,
                gib / ours_ms / 1e6);
    std::printf("  ratio xferlab / bare         : %8.4f  (target <= 1.02)\n", ours_ms / bare_ms);

    // CUPTI cost: interleave blocks so drift affects both alike.
    const size_t size = 64ull << 20;
    std::vector<double> host_only, cupti;
    for (int block = 0; block < 6; ++block) {
        auto a = xferlab_loop(*backend, pinned_h2d(size, TimingMode::host), reps);
        auto b = xferlab_loop(*backend, pinned_h2d(size, TimingMode::cupti), reps);
        host_only.insert(host_only.end(), a.begin(), a.end());
        cupti.insert(cupti.end(), b.begin(), b.end());
    }
    double h = median(host_only), c = median(cupti);
    std::printf("\n64 MiB pinned H2D, %zu copies each (median per copy)\n", host_only.size());
    std::printf("  timing = host : %8.4f ms  %6.2f GB/s\n", h, size / h / 1e6);
    std::printf("  timing = cupti: %8.4f ms  %6.2f GB/s\n", c, size / c / 1e6);
    std::printf("  CUPTI overhead: %+7.3f %%  (target < 1 %%)\n", (c / h - 1) * 100);
    return 0;
}
