#include "watch/capture.hpp"

#include <fcntl.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "watch/record_writer.hpp"

namespace xfer::watch {
namespace {

int64_t monotonic_ns() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return int64_t(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

// The calls in progress on this thread: a runtime call's own driver calls nest in it.
constexpr int kMaxDepth = 8;
struct ThreadCalls {
    int tid = 0;
    bool announced = false;
    int depth = 0;
    uint32_t outer = 0;  // the outermost call's correlation id while depth > 0
    int64_t start_ns[kMaxDepth] = {};
    int cpu[kMaxDepth] = {};
};
thread_local ThreadCalls tl_calls;

// One flag per (domain, callback id) whose name is written.
constexpr uint32_t kMaxCbid = 4096;
std::atomic<bool> g_named[2][kMaxCbid];

void copy_text(char* dst, size_t size, const char* src) {
    if (!src) src = "";
    const size_t n = std::min(size - 1, std::strlen(src));
    std::memcpy(dst, src, n);
    dst[n] = '\0';
}

xw_record blank(int tid) {
    xw_record r;
    std::memset(&r, 0, sizeof r);
    r.tid = tid;
    return r;
}

void read_comm(int tid, char* name, size_t size) {
    char path[64];
    std::snprintf(path, sizeof path, "/proc/self/task/%d/comm", tid);
    name[0] = '\0';
    const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    const ssize_t n = ::read(fd, name, size - 1);
    ::close(fd);
    if (n <= 0) return;
    name[n] = '\0';
    if (char* nl = std::strchr(name, '\n')) *nl = '\0';
}

}  // namespace

int current_tid() {
    if (tl_calls.tid == 0) tl_calls.tid = int(syscall(SYS_gettid));
    return tl_calls.tid;
}

Capture& Capture::instance() {
    static Capture* c = new Capture;  // leaked: see process_writer()
    return *c;
}

std::string Capture::start_from_environment() {
    const char* dir = std::getenv(XW_ENV_DIR);
    if (!dir || !*dir) return std::string(XW_ENV_DIR) + " is not set: no folder for the records";
    uint64_t sample = kDefaultSampleBytes;
    if (const char* s = std::getenv(XW_ENV_SAMPLE_BYTES); s && *s)
        sample = std::strtoull(s, nullptr, 10);
    return start(dir, sample);
}

std::string Capture::start(const std::string& dir, uint64_t sample_bytes) {
    sample_bytes_ = sample_bytes;
    std::string why = process_writer().open(dir);
    started_ = why.empty();
    return why;
}

void Capture::announce_thread(int tid) {
    xw_record r = blank(tid);
    xw_thread& t = r.u.thread;
    t.cpu = sched_getcpu();
    t.policy = sched_getscheduler(0);
    sched_param param{};
    if (sched_getparam(0, &param) == 0) t.priority = param.sched_priority;
    errno = 0;
    t.nice = getpriority(PRIO_PROCESS, id_t(tid));
    read_comm(tid, t.name, sizeof t.name);
    t.first_ns = monotonic_ns();
    process_writer().write(XW_THREAD, r);
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0) return;
    // One record per 384 CPUs that hold a CPU of the set.
    for (int first = 0; first < CPU_SETSIZE; first += 8 * 48) {
        xw_record a = blank(tid);
        a.u.affinity.first_cpu = uint32_t(first);
        bool any = false;
        for (int cpu = first; cpu < std::min(CPU_SETSIZE, first + 8 * 48); ++cpu)
            if (CPU_ISSET(cpu, &set)) {
                a.u.affinity.bits[(cpu - first) / 8] |= uint8_t(1u << ((cpu - first) % 8));
                any = true;
            }
        if (any) process_writer().write(XW_AFFINITY, a);
    }
}

void Capture::announce_name(const ApiCall& call) {
    const int d = call.domain == XW_DRIVER ? 1 : 0;
    if (call.cbid >= kMaxCbid || g_named[d][call.cbid].exchange(true, std::memory_order_relaxed))
        return;
    xw_record r = blank(current_tid());
    r.u.name.domain = uint8_t(call.domain);
    r.u.name.cbid = call.cbid;
    copy_text(r.u.name.name, sizeof r.u.name.name, call.name);
    process_writer().write(XW_NAME, r);
}

void Capture::sample_pages(const ApiCall& call, const void* host, int tid) {
    xw_record r = blank(tid);
    r.u.numa.correlation = call.correlation;
    const int n = sample_host_nodes(host, call.bytes, r.u.numa.node, XW_NUMA_PAGES);
    if (n <= 0) return;
    r.u.numa.pages = uint16_t(n);
    process_writer().write(XW_NUMA, r);
}

void Capture::api_enter(const ApiCall& call) {
    if (!started_) return;
    ThreadCalls& t = tl_calls;
    const int tid = current_tid();
    if (!t.announced) {
        t.announced = true;
        announce_thread(tid);
    }
    announce_name(call);
    if (t.depth == 0) {
        t.outer = call.correlation;
        // Before the call's clock starts: the sampling is the library's cost, not the call's.
        const void* host = call.host_src ? call.host_src : call.host_dst;
        if (host && call.bytes >= sample_bytes_ && sample_bytes_ > 0) sample_pages(call, host, tid);
    }
    if (t.depth < kMaxDepth) {
        t.cpu[t.depth] = sched_getcpu();
        t.start_ns[t.depth] = monotonic_ns();
    }
    ++t.depth;
}

void Capture::api_exit(const ApiCall& call, int result) {
    if (!started_) return;
    const int64_t end = monotonic_ns();
    ThreadCalls& t = tl_calls;
    if (t.depth == 0) return;  // an exit without its entry (tracing began inside the call)
    --t.depth;
    xw_record r = blank(current_tid());
    xw_api& a = r.u.api;
    a.correlation = call.correlation;
    a.outer = t.depth > 0 ? t.outer : 0;
    a.cbid = call.cbid;
    a.domain = uint8_t(call.domain);
    a.flags = uint8_t((call.memset ? XW_API_MEMSET : 0) | (call.host_src ? XW_API_HOST_SRC : 0) |
                      (call.host_dst ? XW_API_HOST_DST : 0));
    a.memcpy_kind = call.memcpy_kind;
    a.result = result;
    a.bytes = call.bytes;
    a.host_ptr = reinterpret_cast<uint64_t>(call.host_src ? call.host_src : call.host_dst);
    if (t.depth < kMaxDepth) {
        a.cpu = t.cpu[t.depth];
        a.start_ns = t.start_ns[t.depth];
    } else {
        a.cpu = -1;
        a.start_ns = end;
    }
    a.end_ns = end;
    process_writer().write(XW_API, r);
}

void Capture::memcpy_activity(const xw_memcpy& a) {
    if (!started_) return;
    xw_record r = blank(current_tid());
    r.u.memcpy = a;
    process_writer().write(XW_MEMCPY, r);
}

void Capture::memset_activity(const xw_memset& a) {
    if (!started_) return;
    xw_record r = blank(current_tid());
    r.u.memset = a;
    process_writer().write(XW_MEMSET, r);
}

void Capture::device(const xw_device& d) {
    if (!started_) return;
    xw_record r = blank(current_tid());
    r.u.device = d;
    process_writer().write(XW_DEVICE, r);
}

void Capture::clock(bool timestamp_callback, int64_t offset_ns) {
    if (!started_) return;
    xw_record r = blank(current_tid());
    r.u.clock.timestamp_callback = timestamp_callback ? 1 : 0;
    r.u.clock.offset_ns = offset_ns;
    process_writer().write(XW_CLOCK, r);
}

void Capture::note(const std::string& text) {
    if (!started_) return;
    xw_record r = blank(current_tid());
    copy_text(r.u.note.text, sizeof r.u.note.text, text.c_str());
    process_writer().write(XW_NOTE, r);
}

void Capture::end(xw_end e) {
    if (!started_) return;
    xw_record r = blank(current_tid());
    e.end_ns = monotonic_ns();
    e.not_written += process_writer().not_written();
    r.u.end = e;
    process_writer().write(XW_END, r);
}

int majority_node(const int8_t* nodes, int n, int* on_node) {
    int count[128] = {};
    int best = -1;
    for (int i = 0; i < n; ++i)
        if (nodes[i] >= 0 && ++count[nodes[i]] > (best < 0 ? 0 : count[best])) best = nodes[i];
    if (on_node) *on_node = best < 0 ? 0 : count[best];
    return best;
}

int sample_host_nodes(const void* ptr, uint64_t bytes, int8_t* nodes, int max_pages) {
    if (!ptr || bytes == 0 || max_pages <= 0) return 0;
    const uint64_t page = uint64_t(sysconf(_SC_PAGESIZE));
    const uint64_t first = reinterpret_cast<uint64_t>(ptr) / page;
    const uint64_t last = (reinterpret_cast<uint64_t>(ptr) + bytes - 1) / page;
    const uint64_t span = last - first + 1;
    const int n = int(std::min<uint64_t>(span, uint64_t(max_pages)));
    void* pages[XW_NUMA_PAGES > 64 ? XW_NUMA_PAGES : 64];
    int status[sizeof pages / sizeof pages[0]];
    if (n > int(sizeof pages / sizeof pages[0])) return 0;
    for (int i = 0; i < n; ++i) {
        // Evenly spread, first and last page included.
        const uint64_t k = n == 1 ? 0 : uint64_t(i) * (span - 1) / uint64_t(n - 1);
        pages[i] = reinterpret_cast<void*>((first + k) * page);
    }
    // nodes = NULL: move nothing, report where each page is.
    if (syscall(SYS_move_pages, 0, (unsigned long)n, pages, nullptr, status, 0) != 0) return 0;
    for (int i = 0; i < n; ++i) nodes[i] = int8_t(std::clamp(status[i], -128, 127));
    return n;
}

}  // namespace xfer::watch
