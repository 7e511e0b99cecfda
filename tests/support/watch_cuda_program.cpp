// xferlab-watch-cuda: a small CUDA program for the GPU tests of `xferlab watch` (the real
// injected library, not the fake): N threads, each copying its own host buffer to device 0 K
// times with cudaMemcpy (pageable by default, page-locked with --pinned, device to host with
// --d2h), then one cudaMemset. It knows nothing of xferlab: it is the unmodified program.
// With --json FILE it writes each copy call's duration there (CLOCK_MONOTONIC around the
// cudaMemcpy: what the program itself sees), for the overhead benchmark of `xferlab watch`
// (tests/bench/bench-watch-overhead.py), which runs it watched and unwatched.
//   xferlab-watch-cuda [--threads N] [--copies K] [--bytes B] [--pinned] [--d2h] [--json FILE]
#include <cuda_runtime_api.h>
#include <time.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace {

int g_failed = 0;
std::mutex g_mutex;
std::vector<int64_t> g_copy_ns;  // every copy call's duration, for --json

int64_t now_ns() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return int64_t(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

void check(cudaError_t e, const char* what) {
    if (e == cudaSuccess) return;
    std::fprintf(stderr, "xferlab-watch-cuda: %s: %s\n", what, cudaGetErrorString(e));
    g_failed = 1;
}

void worker(size_t bytes, int copies, bool pinned, bool d2h) {
    void* host = nullptr;
    if (pinned)
        check(cudaMallocHost(&host, bytes), "cudaMallocHost");
    else
        host = std::malloc(bytes);
    if (!host) return;
    std::memset(host, 1, bytes);  // first touch by this thread
    void* device = nullptr;
    check(cudaMalloc(&device, bytes), "cudaMalloc");
    std::vector<int64_t> took;
    for (int k = 0; k < copies && device; ++k) {
        const int64_t start = now_ns();
        check(d2h ? cudaMemcpy(host, device, bytes, cudaMemcpyDeviceToHost)
                  : cudaMemcpy(device, host, bytes, cudaMemcpyHostToDevice),
              "cudaMemcpy");
        took.push_back(now_ns() - start);
    }
    {
        std::lock_guard lock(g_mutex);
        g_copy_ns.insert(g_copy_ns.end(), took.begin(), took.end());
    }
    check(cudaFree(device), "cudaFree");
    if (pinned)
        cudaFreeHost(host);
    else
        std::free(host);
}

}  // namespace

int main(int argc, char** argv) {
    int threads = 2, copies = 3;
    size_t bytes = size_t(16) << 20;
    bool pinned = false, d2h = false;
    std::string json;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--threads" && i + 1 < argc)
            threads = std::atoi(argv[++i]);
        else if (a == "--copies" && i + 1 < argc)
            copies = std::atoi(argv[++i]);
        else if (a == "--bytes" && i + 1 < argc)
            bytes = std::strtoull(argv[++i], nullptr, 10);
        else if (a == "--pinned")
            pinned = true;
        else if (a == "--d2h")
            d2h = true;
        else if (a == "--json" && i + 1 < argc)
            json = argv[++i];
        else {
            std::fprintf(stderr, "xferlab-watch-cuda: unknown option %s\n", a.c_str());
            return 64;
        }
    }
    check(cudaSetDevice(0), "cudaSetDevice");
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) pool.emplace_back(worker, bytes, copies, pinned, d2h);
    for (auto& t : pool) t.join();
    void* scratch = nullptr;
    check(cudaMalloc(&scratch, 4096), "cudaMalloc");
    check(cudaMemset(scratch, 0, 4096), "cudaMemset");
    check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    cudaFree(scratch);
    if (!json.empty()) {
        std::ofstream f(json);
        f << "{\"bytes\": " << bytes << ", \"threads\": " << threads << ", \"copy_ns\": [";
        for (size_t i = 0; i < g_copy_ns.size(); ++i) f << (i ? ", " : "") << g_copy_ns[i];
        f << "]}\n";
    }
    return g_failed;
}
