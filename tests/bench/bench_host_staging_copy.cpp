// The host-memory ceiling of the staging engine's copy stage, without a GPU (issue #14,
// docs/performance.md): N threads copy 2 MiB chunks between one shared pageable source of
// 1 GiB and their own two page-aligned 2 MiB buffers (ordinary memory standing in for the
// page-locked ones: the CPU's stores do not know the difference), as the helpers of
// transfer.path = "staged" do, with cached (memcpy) or streaming stores:
//
//   copy-in  (to the device):   pageable chunk -> the thread's buffer (alternating two)
//   copy-out (from the device): the thread's buffer -> pageable chunk
//
// Thread t takes chunks t, t + N, t + 2N, ... of the source. One pass moves the whole source
// once; the time of a pass is from the release of all threads to the last one done. Passes
// alternate cached and streaming so that drift in machine load hits both alike; each figure is
// the median over passes (GB/s = 1e9 bytes per second). Without the DMA a copy-in buffer stays
// in the cache between chunks, so cached copy-in here is an upper bound: on the GPU host the
// DMA reads every buffer, and those lines then come from the cache or from memory.
//
// Usage: bench_host_staging_copy [--bytes SIZE_MIB] [--passes N] [--node N]
//   --node N: run every thread on NUMA node N's CPUs and touch the source from there (the
//   helpers' gpu-local placement); thread counts are capped at the CPUs available.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "engine/streaming_copy.hpp"
#include "launch/thread_control.hpp"
#include "memory/host_buffer.hpp"
#include "report/analysis/trial_stats.hpp"
#include "system/cpu_topology.hpp"
#include "system/host_description.hpp"
#include "util/clock.hpp"

using namespace xfer;

namespace {

constexpr uint64_t kChunk = uint64_t(2) << 20;
constexpr int kBuffers = 2;

struct Options {
    uint64_t bytes = uint64_t(1) << 30;
    int passes = 7;
    int node = -1;
};

// One thread's two chunk buffers, page-aligned and touched by that thread.
struct ThreadBuffers {
    std::byte* slot[kBuffers] = {};
    ThreadBuffers() = default;
    ThreadBuffers(const ThreadBuffers&) = delete;
    ThreadBuffers& operator=(const ThreadBuffers&) = delete;
    ~ThreadBuffers() {
        for (auto* p : slot) std::free(p);
    }
};

// One pass: `threads` threads copy every chunk of `pageable` once in direction `in`; returns
// the seconds from their release to the last one done.
double one_pass(std::byte* pageable, uint64_t bytes, std::vector<ThreadBuffers>& buffers,
                const std::vector<int>& cpus, bool in, HostStores stores) {
    const int threads = int(buffers.size());
    const uint64_t chunks = bytes / kChunk;
    std::atomic<int> ready{0};
    std::atomic<bool> go{false};
    std::vector<int64_t> ends(size_t(threads), 0);
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t)
        pool.emplace_back([&, t] {
            if (!cpus.empty()) apply_affinity(cpus);
            ThreadBuffers& b = buffers[size_t(t)];
            ready.fetch_add(1);
            while (!go.load(std::memory_order_acquire)) {
            }
            int slot = 0;
            for (uint64_t c = uint64_t(t); c < chunks; c += uint64_t(threads)) {
                std::byte* host = pageable + c * kChunk;
                if (in)
                    host_copy(stores, b.slot[slot], host, kChunk);
                else
                    host_copy(stores, host, b.slot[slot], kChunk);
                slot = (slot + 1) % kBuffers;
            }
            ends[size_t(t)] = now_ns();
        });
    while (ready.load() < threads) std::this_thread::yield();
    const int64_t t0 = now_ns();
    go.store(true, std::memory_order_release);
    for (auto& th : pool) th.join();
    return double(*std::max_element(ends.begin(), ends.end()) - t0) / 1e9;
}

// Each thread allocates and touches its own buffers on its own CPUs (first-touch placement).
std::vector<ThreadBuffers> make_buffers(int threads, const std::vector<int>& cpus) {
    std::vector<ThreadBuffers> buffers(static_cast<size_t>(threads));
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t)
        pool.emplace_back([&, t] {
            if (!cpus.empty()) apply_affinity(cpus);
            for (auto*& p : buffers[size_t(t)].slot) {
                p = static_cast<std::byte*>(std::aligned_alloc(4096, kChunk));
                if (!p) {
                    std::fprintf(stderr, "bench_host_staging_copy: out of memory\n");
                    std::exit(2);
                }
                std::memset(p, 0x11, kChunk);
            }
        });
    for (auto& th : pool) th.join();
    return buffers;
}

Options parse(int argc, char** argv) {
    Options o;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (i + 1 >= argc) {
            std::fprintf(stderr, "bench_host_staging_copy: %s needs a value\n", a.c_str());
            std::exit(2);
        }
        const long v = std::atol(argv[++i]);
        if (a == "--bytes" && v >= 4)
            o.bytes = uint64_t(v) << 20;  // MiB
        else if (a == "--passes" && v >= 1)
            o.passes = int(v);
        else if (a == "--node" && v >= 0)
            o.node = int(v);
        else {
            std::fprintf(stderr,
                         "bench_host_staging_copy: unknown option or value %s %s "
                         "(--bytes MIB (>= 4), --passes N (>= 1), --node N)\n",
                         a.c_str(), argv[i]);
            std::exit(2);
        }
    }
    o.bytes -= o.bytes % kChunk;
    return o;
}

std::vector<int> node_cpus(int node) {
    std::vector<int> cpus;
    for (const CpuPlace& p : cpu_places(allowed_cpus()))
        if (p.node == node) cpus.push_back(p.cpu);
    return cpus;
}

}  // namespace

int main(int argc, char** argv) {
    const Options o = parse(argc, argv);
    const std::vector<int> cpus = o.node >= 0 ? node_cpus(o.node) : std::vector<int>{};
    if (o.node >= 0 && cpus.empty()) {
        std::fprintf(stderr, "bench_host_staging_copy: no allowed CPU on NUMA node %d\n", o.node);
        return 2;
    }
    const int available = int(o.node >= 0 ? cpus.size() : allowed_cpus().size());
    if (!cpus.empty()) apply_affinity(cpus);  // the source's first touch lands on the node

    HostBuffer pageable = HostBuffer::allocate(HostMemory{}, o.bytes);
    std::memset(pageable.data(), 0x22, o.bytes);

    const auto host = describe_host();
    std::printf(
        "bench_host_staging_copy: %llu MiB pageable <-> %d x 2 MiB buffers per thread, "
        "2 MiB chunks, %d passes per figure (median GB/s)\n",
        static_cast<unsigned long long>(o.bytes >> 20), kBuffers, o.passes);
    std::printf("cpu: %s; %d CPUs used%s; streaming stores: %s\n",
                host.value("cpu_model", std::string("?")).c_str(), available,
                o.node >= 0 ? (" (NUMA node " + std::to_string(o.node) + ")").c_str() : "",
                has_streaming_stores() ? "SSE2 non-temporal" : "none (memcpy)");
    std::printf("\n%7s  %14s %14s %6s  %14s %14s %6s\n", "threads", "in cached", "in streaming",
                "ratio", "out cached", "out streaming", "ratio");
    for (int threads : {1, 2, 4, 8, 12, 16}) {
        if (threads > available) break;
        auto buffers = make_buffers(threads, cpus);
        double gbps[2][2] = {};  // [in?][streaming?]
        for (int in = 1; in >= 0; --in) {
            std::vector<double> rate[2];
            one_pass(pageable.data(), o.bytes, buffers, cpus, in, HostStores::cached);  // warm
            for (int p = 0; p < o.passes; ++p)
                for (int s : {p % 2, 1 - p % 2}) {
                    const HostStores stores = s ? HostStores::streaming : HostStores::cached;
                    const double sec =
                        one_pass(pageable.data(), o.bytes, buffers, cpus, in != 0, stores);
                    rate[s].push_back(double(o.bytes) / sec / 1e9);
                }
            gbps[in][0] = stats::median(rate[0]);
            gbps[in][1] = stats::median(rate[1]);
        }
        std::printf("%7d  %9.2f GB/s %9.2f GB/s %5.2fx  %9.2f GB/s %9.2f GB/s %5.2fx\n", threads,
                    gbps[1][0], gbps[1][1], gbps[1][1] / gbps[1][0], gbps[0][0], gbps[0][1],
                    gbps[0][1] / gbps[0][0]);
        std::fflush(stdout);
    }
    return 0;
}
