// What the identical copy routine costs over a bare memcpy, measured in one process on the same
// buffers (docs/performance.md, "Host copy routine").
//
//   A: Worker::copy_once() on a host-backend transfer: sched_getcpu, two clock reads, the
//      virtual WorkerTransfer::copy (std::memcpy) and the record it writes;
//   B: std::memcpy(dst, src, n) on the very same buffers, nothing else.
//
// Both run in blocks of K back-to-back copies timed as a whole; blocks alternate A B B A ... so
// that drift in machine load hits both alike. Per size: the median per-copy time of each, and
// the median over block pairs of A's extra time (64 MiB: as a percentage; 4 KiB: ns per copy).
// Usage: bench_host_copy [--blocks N]   (exit 1 when a target is missed)
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "backend/host_backend.hpp"
#include "launch/thread_control.hpp"
#include "launch/worker.hpp"
#include "memory/host_buffer.hpp"
#include "util/clock.hpp"

using namespace xfer;

namespace {

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::string first_match(const char* path, const char* key) {
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line))
        if (line.rfind(key, 0) == 0) {
            auto colon = line.find(':');
            return colon == std::string::npos ? line : line.substr(colon + 2);
        }
    return "?";
}

std::string load_average() {
    std::ifstream in("/proc/loadavg");
    std::string a, b, c;
    in >> a >> b >> c;
    return a + " " + b + " " + c;
}

struct Result {
    double routine_ns;   // median per-copy time, A
    double memcpy_ns;    // median per-copy time, B
    double extra_ns;     // median over block pairs of (A - B) per copy
    double extra_ratio;  // median over block pairs of (A / B - 1)
};

Result measure(uint64_t bytes, int per_block, int blocks) {
    TransferSpec spec;
    spec.direction = Direction::h2d;
    spec.bytes = bytes;
    spec.first_touch = FirstTouch::main;  // every page faulted in before anything is timed
    auto backend = make_host_backend();
    Worker worker(0, 0, backend->prepare(spec, 0), per_block, 0);
    worker.enter_thread("bench");
    std::byte* src = host_source(worker.transfer())->data();
    std::byte* dst = host_destination(worker.transfer())->data();

    auto run_routine = [&] {
        worker.records().clear();  // keeps the reserved storage: copy_once still never allocates
        const int64_t t0 = now_ns();
        for (int i = 0; i < per_block; ++i) worker.copy_once();
        return double(now_ns() - t0) / per_block;
    };
    auto run_memcpy = [&] {
        const int64_t t0 = now_ns();
        for (int i = 0; i < per_block; ++i) {
            std::memcpy(dst, src, bytes);
            // Keep the compiler from merging or dropping copies of identical bytes.
            asm volatile("" : : "r"(dst) : "memory");
        }
        return double(now_ns() - t0) / per_block;
    };

    run_routine();  // warm caches, TLB, branch predictors for both
    run_memcpy();
    std::vector<double> a, b, extra, ratio;
    for (int k = 0; k < blocks; ++k) {
        double ta, tb;
        if (k % 2 == 0) {
            ta = run_routine();
            tb = run_memcpy();
        } else {
            tb = run_memcpy();
            ta = run_routine();
        }
        a.push_back(ta);
        b.push_back(tb);
        extra.push_back(ta - tb);
        ratio.push_back(ta / tb - 1);
    }
    if (worker.transfer().verify() != -1) {
        std::fprintf(stderr, "bench_host_copy: destination does not verify\n");
        std::exit(2);
    }
    return {median(a), median(b), median(extra), median(ratio)};
}

// What the routine's fixed parts cost alone: one clock read, one sched_getcpu (ns each).
double cost_of_clock_read() {
    const int n = 1'000'000;
    int64_t sink = 0;
    const int64_t t0 = now_ns();
    for (int i = 0; i < n; ++i) sink += now_ns();
    const int64_t t1 = now_ns();
    asm volatile("" : : "r"(sink));
    return double(t1 - t0) / n;
}

double cost_of_getcpu() {
    const int n = 1'000'000;
    int sink = 0;
    const int64_t t0 = now_ns();
    for (int i = 0; i < n; ++i) sink += sched_getcpu();
    const int64_t t1 = now_ns();
    asm volatile("" : : "r"(sink));
    return double(t1 - t0) / n;
}

}  // namespace

int main(int argc, char** argv) {
    int blocks = 31;
    for (int i = 1; i + 1 < argc; ++i)
        if (std::strcmp(argv[i], "--blocks") == 0) blocks = std::max(1, std::atoi(argv[i + 1]));

    // One CPU for the whole measurement: a migration would hit A or B, not both.
    apply_affinity({sched_getcpu()});

    std::printf("bench_host_copy: Worker::copy_once (host backend) vs bare memcpy, same buffers\n");
    std::printf("cpu: %s, %ld online; pinned to cpu %d; load average before: %s\n",
                first_match("/proc/cpuinfo", "model name").c_str(), sysconf(_SC_NPROCESSORS_ONLN),
                sched_getcpu(), load_average().c_str());

    const Result big = measure(64ull << 20, 4, blocks);
    const Result small = measure(4096, 20000, blocks);

    std::printf("\n%-7s %7s %6s %14s %14s %16s %10s\n", "size", "copies", "blocks", "memcpy p50",
                "routine p50", "overhead", "target");
    std::printf("%-7s %7d %6d %11.3f ms %11.3f ms %14.3f %% %10s\n", "64 MiB", 4, blocks,
                big.memcpy_ns / 1e6, big.routine_ns / 1e6, big.extra_ratio * 100, "< 2 %");
    std::printf("%-7s %7d %6d %11.1f ns %11.1f ns %11.1f ns/copy %10s\n", "4 KiB", 20000, blocks,
                small.memcpy_ns, small.routine_ns, small.extra_ns, "< 1000 ns");
    std::printf("\n64 MiB memcpy: %.2f GB/s; one clock read: %.1f ns; one sched_getcpu: %.1f ns\n",
                double(64ull << 20) / big.memcpy_ns, cost_of_clock_read(), cost_of_getcpu());
    // The routine does the same work whatever the size, so its fixed cost bounds its overhead
    // on large copies far below what the 64 MiB comparison itself can resolve.
    std::printf("fixed cost (4 KiB extra) against one 64 MiB copy: %.4f %%\n",
                100 * small.extra_ns / big.memcpy_ns);
    std::printf("load average after: %s\n", load_average().c_str());

    const bool ok = big.extra_ratio < 0.02 && small.extra_ns < 1000;
    std::printf("%s\n", ok ? "targets met" : "TARGET MISSED");
    return ok ? 0 : 1;
}
