// xferlab-watch-fake: a stand-in for a CUDA program under `xferlab watch`, for the tests that
// have no GPU. It plays the driver and CUPTI around the injected library's capture layer
// (watch/capture.hpp), in the shape CUPTI delivers events: on each copying thread a runtime
// call (cudaMemcpy) with its driver call (cuMemcpyHtoD_v2) nested in it, each with its own
// correlation id, entry and exit; the "copy" a real memcpy between host buffers, timed as the
// device interval; the activity records (driver id as correlationId, the runtime id as
// runtimeCorrelationId) handed over later, in batches, on a thread of their own, as CUPTI's
// buffer completion does. Options make the shapes the tests need: copies that take turns
// (--serialize, as pageable copies to one device do), a child process (--child), a crash,
// a kill or os._exit before the last batch is delivered, a wait for a signal, a device whose
// nearest NUMA node is another than the pages' (--device-node: a fake topology).
//
//   xferlab-watch-fake [--threads N] [--copies K] [--bytes B] [--pinned] [--serialize]
//       [--split] [--memsets M] [--device-node D:N]... [--devices D] [--child ARGS...]
//       [--exit N] [--os-exit N] [--raise SIG] [--wait-signal] [--name-threads] [--gap-us U]
//   xferlab-watch-fake --load-injection
//       what the driver does at cuInit: dlopen $CUDA_INJECTION64_PATH and call its
//       InitializeInjection (the real library, in a process without a GPU), then exit
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "watch/capture.hpp"
#include "watch/record_writer.hpp"

extern char** environ;

namespace {

using xfer::watch::ApiCall;
using xfer::watch::Capture;

struct Options {
    int threads = 2;
    int copies = 4;
    uint64_t bytes = 1 << 20;
    bool pinned = false;
    bool serialize = false;
    bool split = false;
    int memsets = 0;
    int devices = 1;
    std::vector<std::pair<int, int>> device_nodes;
    std::vector<std::string> child;
    int exit_code = 0;
    int os_exit = -1;
    int raise_signal = 0;
    bool wait_signal = false;
    bool name_threads = false;
    int gap_us = 0;
    bool load_injection = false;
};

int64_t now_ns() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return int64_t(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

// CUPTI's activity delivery: records queue up and are handed to the library in batches, on a
// thread of their own, every few milliseconds or when a buffer's worth is waiting. At most
// kMostQueued wait, as CUPTI's buffers are bounded: a copying thread that finds them full waits
// for the delivery (CUPTI would drop records instead). Unbounded, the queue grew where the
// delivery thread was starved: 4 x 250,000 copies peaked at 6-9 MiB alone and 12-24 MiB beside
// four busy loops on two cores, and the test that holds the library's memory under 32 MiB
// failed once in CI on the fake's own.
class Delivery {
  public:
    void start() {
        thread_ = std::thread([this] { loop(); });
    }
    void add(const xw_memcpy& a) {
        std::unique_lock lock(mutex_);
        room_.wait(lock, [&] { return copies_.size() < kMostQueued || stop_; });
        copies_.push_back(a);
        if (copies_.size() >= 64) wake_.notify_one();
    }
    void add(const xw_memset& a) {
        std::lock_guard lock(mutex_);
        memsets_.push_back(a);
    }
    // cuptiActivityFlushAll at exit: every queued record delivered, the thread ended.
    void flush_and_stop() {
        {
            std::lock_guard lock(mutex_);
            stop_ = true;
        }
        wake_.notify_one();
        thread_.join();
    }

  private:
    void deliver_locked(std::unique_lock<std::mutex>& lock) {
        std::deque<xw_memcpy> copies;
        std::deque<xw_memset> memsets;
        copies.swap(copies_);
        memsets.swap(memsets_);
        lock.unlock();
        room_.notify_all();
        for (const auto& a : copies) Capture::instance().memcpy_activity(a);
        for (const auto& a : memsets) Capture::instance().memset_activity(a);
        lock.lock();
    }
    void loop() {
        std::unique_lock lock(mutex_);
        while (!stop_) {
            wake_.wait_for(lock, std::chrono::milliseconds(5));
            deliver_locked(lock);
        }
        deliver_locked(lock);
    }
    static constexpr size_t kMostQueued = 16384;
    std::mutex mutex_;
    std::condition_variable wake_;
    std::condition_variable room_;  // the queue has room again
    std::deque<xw_memcpy> copies_;
    std::deque<xw_memset> memsets_;
    bool stop_ = false;
    std::thread thread_;
};

Delivery g_delivery;
std::atomic<uint32_t> g_correlation{1};
std::mutex g_device;  // --serialize: one "DMA" at a time, as pageable copies to one device go

// One cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice): the runtime call, the driver call
// inside it, the copy, and its activity record queued for delivery.
void copy_once(const Options& o, int device, char* dst, const char* src) {
    ApiCall runtime{.domain = XW_RUNTIME,
                    .cbid = 31,
                    .name = "cudaMemcpy",
                    .correlation = g_correlation++,
                    .memcpy_kind = 1,
                    .host_src = src,
                    .bytes = o.bytes};
    ApiCall driver{.domain = XW_DRIVER,
                   .cbid = 276,
                   .name = "cuMemcpyHtoD_v2",
                   .correlation = g_correlation++,
                   .memcpy_kind = 1,
                   .host_src = src,
                   .bytes = o.bytes};
    Capture& capture = Capture::instance();
    capture.api_enter(runtime);
    capture.api_enter(driver);
    int64_t start, end;
    {
        std::unique_lock lock(g_device, std::defer_lock);
        if (o.serialize) lock.lock();
        start = now_ns();
        std::memcpy(dst, src, o.bytes);
        end = now_ns();
    }
    capture.api_exit(driver, 0);
    capture.api_exit(runtime, 0);
    const int parts = o.split ? 2 : 1;
    for (int p = 0; p < parts; ++p) {
        xw_memcpy a{};
        a.correlation = driver.correlation;
        a.runtime_correlation = runtime.correlation;
        a.start = uint64_t(start + (end - start) * p / parts);
        a.end = uint64_t(start + (end - start) * (p + 1) / parts);
        a.bytes = o.bytes / uint64_t(parts);
        a.device = uint32_t(device);
        a.context = uint32_t(device + 1);
        a.stream = 7;
        a.copy_kind = 1;                // HtoD
        a.src_kind = o.pinned ? 2 : 1;  // pinned : pageable
        a.dst_kind = 3;                 // device
        g_delivery.add(a);
    }
}

void memset_once(int device, uint64_t bytes) {
    ApiCall call{.domain = XW_RUNTIME,
                 .cbid = 33,
                 .name = "cudaMemset",
                 .correlation = g_correlation++,
                 .memset = true,
                 .bytes = bytes};
    ApiCall driver{.domain = XW_DRIVER,
                   .cbid = 281,
                   .name = "cuMemsetD8_v2",
                   .correlation = g_correlation++,
                   .memset = true};
    Capture::instance().api_enter(call);
    Capture::instance().api_enter(driver);
    const int64_t start = now_ns();
    Capture::instance().api_exit(driver, 0);
    Capture::instance().api_exit(call, 0);
    xw_memset m{};
    m.correlation = driver.correlation;
    m.start = uint64_t(start);
    m.end = uint64_t(now_ns());
    m.bytes = bytes;
    m.device = uint32_t(device);
    m.context = uint32_t(device + 1);
    m.stream = 7;
    m.memory_kind = 3;
    g_delivery.add(m);
}

void worker(const Options& o, int index) {
    if (o.name_threads) {
        const std::string name = "copier-" + std::to_string(index);
        pthread_setname_np(pthread_self(), name.c_str());
    }
    std::vector<char> src(o.bytes, char(index)), dst(o.bytes);
    for (int k = 0; k < o.copies; ++k) {
        copy_once(o, index % o.devices, dst.data(), src.data());
        if (o.gap_us > 0) std::this_thread::sleep_for(std::chrono::microseconds(o.gap_us));
    }
    if (index == 0)
        for (int k = 0; k < o.memsets; ++k) memset_once(0, o.bytes);
}

int spawn_child(const std::vector<std::string>& args) {
    std::vector<std::string> all = {"/proc/self/exe"};
    all.insert(all.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : all) argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_t pid = 0;
    if (posix_spawn(&pid, "/proc/self/exe", nullptr, nullptr, argv.data(), environ) != 0) return -1;
    int status = 0;
    waitpid(pid, &status, 0);
    return status;
}

Options parse(int argc, char** argv) {
    Options o;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        const auto next = [&] { return i + 1 < argc ? std::string(argv[++i]) : std::string(); };
        if (a == "--threads")
            o.threads = std::atoi(next().c_str());
        else if (a == "--copies")
            o.copies = std::atoi(next().c_str());
        else if (a == "--bytes")
            o.bytes = std::strtoull(next().c_str(), nullptr, 10);
        else if (a == "--pinned")
            o.pinned = true;
        else if (a == "--serialize")
            o.serialize = true;
        else if (a == "--split")
            o.split = true;
        else if (a == "--memsets")
            o.memsets = std::atoi(next().c_str());
        else if (a == "--devices")
            o.devices = std::max(1, std::atoi(next().c_str()));
        else if (a == "--device-node") {
            const std::string v = next();
            o.device_nodes.push_back(
                {std::atoi(v.c_str()), std::atoi(v.c_str() + v.find(':') + 1)});
        } else if (a == "--exit")
            o.exit_code = std::atoi(next().c_str());
        else if (a == "--os-exit")
            o.os_exit = std::atoi(next().c_str());
        else if (a == "--raise")
            o.raise_signal = std::atoi(next().c_str());
        else if (a == "--wait-signal")
            o.wait_signal = true;
        else if (a == "--name-threads")
            o.name_threads = true;
        else if (a == "--gap-us")
            o.gap_us = std::atoi(next().c_str());
        else if (a == "--load-injection")
            o.load_injection = true;
        else if (a == "--child") {
            o.child.assign(argv + i + 1, argv + argc);
            break;
        } else {
            std::fprintf(stderr, "xferlab-watch-fake: unknown option %s\n", a.c_str());
            std::exit(64);
        }
    }
    return o;
}

// SIGINT and SIGTERM, blocked from the start (every thread inherits the mask) and taken with
// sigwait: no handler and no flag polled around pause(), whatever a sanitizer does with
// handlers.
sigset_t stop_signals() {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    return set;
}

}  // namespace

// The driver's part at cuInit: load the library the variable names and initialize it.
int load_injection() {
    const char* path = std::getenv("CUDA_INJECTION64_PATH");
    if (!path) return 2;
    void* lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        std::fprintf(stderr, "xferlab-watch-fake: %s\n", dlerror());
        return 3;
    }
    auto init = reinterpret_cast<int (*)()>(dlsym(lib, "InitializeInjection"));
    if (!init) return 4;
    std::printf("InitializeInjection returned %d\n", init());
    return 0;
}

int main(int argc, char** argv) {
    const Options o = parse(argc, argv);
    if (o.load_injection) return load_injection();
    if (o.wait_signal) {
        const sigset_t set = stop_signals();
        pthread_sigmask(SIG_BLOCK, &set, nullptr);
    }
    // The driver loads the injected library only where the variable names a file.
    const char* injection = std::getenv("CUDA_INJECTION64_PATH");
    const bool injected = injection && access(injection, R_OK) == 0;
    if (injected) {
        if (const std::string why = Capture::instance().start_from_environment(); !why.empty())
            std::fprintf(stderr, "xferlab-watch-fake: not recording: %s\n", why.c_str());
        Capture::instance().clock(true, 0);
        for (int d = 0; d < o.devices; ++d) {
            xw_device dev{};
            dev.device = uint32_t(d);
            dev.numa_node = -1;
            for (const auto& [device, node] : o.device_nodes)
                if (device == d) dev.numa_node = node;
            std::snprintf(dev.pci_bus_id, sizeof dev.pci_bus_id, "0000:%02x:00.0",
                          (0x10 + d) & 0xff);
            std::snprintf(dev.name, sizeof dev.name, "Fake Device %d", d);
            Capture::instance().device(dev);
        }
    }
    g_delivery.start();
    std::vector<std::thread> threads;
    for (int t = 0; t < o.threads; ++t) threads.emplace_back(worker, std::cref(o), t);
    for (auto& t : threads) t.join();
    if (!o.child.empty()) {
        const int status = spawn_child(o.child);
        std::printf("child status %d\n", status);
    }
    // Before CUPTI's last delivery: the exit handler never runs, the queued records are lost.
    if (o.raise_signal) raise(o.raise_signal);
    if (o.os_exit >= 0) _exit(o.os_exit);
    g_delivery.flush_and_stop();
    if (o.wait_signal) {
        std::printf("ready\n");
        std::fflush(stdout);
        const sigset_t set = stop_signals();
        int sig = 0;
        while (sigwait(&set, &sig) != 0) {
        }
        Capture::instance().end(xw_end{});
        return 128 + sig;
    }
    // The library's exit handler.
    Capture::instance().end(xw_end{});
    xfer::watch::process_writer().close();
    return o.exit_code;
}
