// Benchmark (not a test): the staging engine's own overhead. From page-locked source memory the
// engine has nothing to cure, so what it costs shows alone: 1 GiB H2D and D2H through
// transfer.path = "staged" vs the driver's cudaMemcpyAsync of the same bytes from the same kind
// of memory, both through the backend's copy routine (host clock around the call), blocks of
// copies interleaved. Ratio of medians per direction and staging set-up.
// Usage: bench_cuda_staging [repetitions]   (docs/performance.md has the numbers)
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "backend/backend.hpp"
#include "util/clock.hpp"
#include "util/format.hpp"

using namespace xfer;

namespace {

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// GB/s of each copy after two warm-up copies.
std::vector<double> copies(Backend& backend, const TransferSpec& t, int reps) {
    auto transfer = backend.prepare(t, 0);
    transfer->attach_thread();
    backend.begin_run(t);
    std::vector<double> gbps;
    for (int i = 0; i < reps + 2; ++i) {
        const int64_t t0 = now_ns();
        transfer->copy();
        const int64_t took = now_ns() - t0;
        if (i >= 2) gbps.push_back(double(t.bytes) / double(took));
    }
    std::vector<Record> none;
    (void)backend.end_run(none);
    if (transfer->verify() >= 0) {
        fmt::print(stderr, "verification failed\n");
        std::exit(1);
    }
    return gbps;
}

}  // namespace

int main(int argc, char** argv) {
    const int reps = argc > 1 ? std::atoi(argv[1]) : 10;
    auto backend = make_backend("cuda");
    fmt::print("{:<6} {:<9} {:>8} {:>8} {:>12} {:>12} {:>7}\n", "dir", "memory", "threads", "chunk",
               "driver GB/s", "staged GB/s", "ratio");
    for (Direction d : {Direction::h2d, Direction::d2h}) {
        for (HostMemoryKind m : {HostMemoryKind::pinned, HostMemoryKind::pageable}) {
            for (int threads : {0, 4}) {
                TransferSpec t;
                t.direction = d;
                t.bytes = uint64_t(1) << 30;
                t.host_memory = {m, -1};
                t.api = CopyApi::async;
                t.stream = StreamKind::non_blocking;
                t.timing = TimingMode::host;
                t.staging.threads = threads;
                TransferSpec staged = t;
                staged.path = CopyPath::staged;
                std::vector<double> a, b;
                for (int block = 0; block < 3; ++block) {  // interleaved: drift hits both
                    auto x = copies(*backend, t, reps);
                    auto y = copies(*backend, staged, reps);
                    a.insert(a.end(), x.begin(), x.end());
                    b.insert(b.end(), y.begin(), y.end());
                }
                fmt::print("{:<6} {:<9} {:>8} {:>8} {:>12.2f} {:>12.2f} {:>7.3f}\n", to_string(d),
                           to_string(t.host_memory), threads ? std::to_string(threads) : "auto",
                           t.staging.chunk ? format_size(t.staging.chunk) : "auto", median(a),
                           median(b), median(b) / median(a));
            }
        }
    }
    return 0;
}
