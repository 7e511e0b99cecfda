// The calling thread's counters: perf_event_open groups (one read each), getrusage and
// schedstat. Which exist depends on the kernel and the host; each is tried once when opened.
#include "system/thread_counters.hpp"

#include <fcntl.h>
#include <linux/perf_event.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <ctime>

namespace xfer {
namespace {

constexpr const char* kNames[kThreadCounters] = {
    "on_cpu_ns",  "runqueue_ns", "voluntary_switches", "involuntary_switches",
    "migrations", "page_faults", "instructions",       "cycles",
    "l1d_misses", "llc_misses",  "itlb_misses",        "dtlb_misses"};

size_t at(ThreadCounter c) { return size_t(c); }

// The perf event (type, config) that counts `c`; false for those read elsewhere.
bool perf_event_of(ThreadCounter c, uint32_t& type, uint64_t& config) {
    auto cache = [&](uint64_t which) {
        type = PERF_TYPE_HW_CACHE;
        config = which | (uint64_t(PERF_COUNT_HW_CACHE_OP_READ) << 8) |
                 (uint64_t(PERF_COUNT_HW_CACHE_RESULT_MISS) << 16);
        return true;
    };
    switch (c) {
        case ThreadCounter::migrations:
            type = PERF_TYPE_SOFTWARE, config = PERF_COUNT_SW_CPU_MIGRATIONS;
            return true;
        case ThreadCounter::page_faults:
            type = PERF_TYPE_SOFTWARE, config = PERF_COUNT_SW_PAGE_FAULTS;
            return true;
        case ThreadCounter::instructions:
            type = PERF_TYPE_HARDWARE, config = PERF_COUNT_HW_INSTRUCTIONS;
            return true;
        case ThreadCounter::cycles:
            type = PERF_TYPE_HARDWARE, config = PERF_COUNT_HW_CPU_CYCLES;
            return true;
        case ThreadCounter::l1d_misses:
            return cache(PERF_COUNT_HW_CACHE_L1D);
        case ThreadCounter::llc_misses:
            return cache(PERF_COUNT_HW_CACHE_LL);
        case ThreadCounter::itlb_misses:
            return cache(PERF_COUNT_HW_CACHE_ITLB);
        case ThreadCounter::dtlb_misses:
            return cache(PERF_COUNT_HW_CACHE_DTLB);
        default:
            return false;
    }
}

// This thread's event; the kernel's side counted too where perf_event_paranoid allows it, else
// user space only (`user_only` says which it got).
int open_perf_event(uint32_t type, uint64_t config, int group, bool& user_only) {
    perf_event_attr attr;
    std::memset(&attr, 0, sizeof attr);
    attr.size = sizeof attr;
    attr.type = type;
    attr.config = config;
    attr.read_format =
        PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
    attr.exclude_kernel = user_only;
    attr.exclude_hv = user_only;
    int fd = int(syscall(SYS_perf_event_open, &attr, 0, -1, group, PERF_FLAG_FD_CLOEXEC));
    if (fd < 0 && errno == EACCES && !user_only) {
        user_only = true;
        return open_perf_event(type, config, group, user_only);
    }
    return fd;
}

std::string list_of(const std::string& names, const std::string& more) {
    return names.empty() ? more : names + ", " + more;
}

}  // namespace

const char* thread_counter_name(ThreadCounter c) { return kNames[at(c)]; }

std::optional<ThreadCounter> thread_counter_named(std::string_view name) {
    for (size_t i = 0; i < kThreadCounters; ++i)
        if (name == kNames[i]) return ThreadCounter(i);
    return std::nullopt;
}

std::optional<Schedstat> parse_schedstat(std::string_view text) {
    Schedstat s;
    uint64_t* fields[] = {&s.run_ns, &s.wait_ns, &s.timeslices};
    const char* p = text.data();
    const char* end = p + text.size();
    for (uint64_t* f : fields) {
        while (p < end && *p == ' ') ++p;
        const auto [next, ec] = std::from_chars(p, end, *f);
        if (ec != std::errc() || next == p) return std::nullopt;
        p = next;
    }
    return s;
}

void ThreadCounters::open_group(Group& g, std::initializer_list<ThreadCounter> wanted,
                                std::string& why) {
    bool user_only = false;
    for (ThreadCounter c : wanted) {
        uint32_t type = 0;
        uint64_t config = 0;
        perf_event_of(c, type, config);
        const int fd = open_perf_event(type, config, g.leader, user_only);
        if (fd < 0) {
            if (why.empty()) why = std::strerror(errno);
            continue;
        }
        fds_[at(c)] = fd;
        if (g.leader < 0) g.leader = fd;
        g.order[size_t(g.members++)] = c;
    }
    if (user_only && g.members > 0 && unavailable_.empty())
        unavailable_ = "perf counted user space only (perf_event_paranoid)";
}

ThreadCounters::ThreadCounters() {
    fds_.fill(-1);
    std::string sw_why, hw_why;
    // Not task-clock: it has a PMU of its own, and a group mixing it with these counts nothing
    // on one side (Linux 6.x); the thread's CPU clock reads the same ns (read()).
    open_group(software_, {ThreadCounter::page_faults, ThreadCounter::migrations}, sw_why);
    open_group(hardware_,
               {ThreadCounter::instructions, ThreadCounter::cycles, ThreadCounter::l1d_misses,
                ThreadCounter::llc_misses, ThreadCounter::itlb_misses, ThreadCounter::dtlb_misses},
               hw_why);
    const std::string schedstat = "/proc/self/task/" + std::to_string(::gettid()) + "/schedstat";
    schedstat_fd_ = ::open(schedstat.c_str(), O_RDONLY | O_CLOEXEC);
    const std::string schedstat_why = schedstat_fd_ < 0 ? std::strerror(errno) : "";
    // Without perf, page faults come from getrusage (read()): only migrations are lost.
    std::string missing;
    if (fds_[at(ThreadCounter::migrations)] < 0)
        missing = "migrations (perf_event_open: " + sw_why + ")";
    std::string hw;
    for (ThreadCounter c :
         {ThreadCounter::instructions, ThreadCounter::cycles, ThreadCounter::l1d_misses,
          ThreadCounter::llc_misses, ThreadCounter::itlb_misses, ThreadCounter::dtlb_misses})
        if (fds_[at(c)] < 0) hw = list_of(hw, thread_counter_name(c));
    if (!hw.empty())
        missing =
            list_of(missing,
                    hw + (hardware_.members == 0 ? " (no hardware counters exposed here: " : " (") +
                        "perf_event_open: " + hw_why + ")");
    if (schedstat_fd_ < 0)
        missing = list_of(missing, "runqueue_ns (" + schedstat + ": " + schedstat_why + ")");
    if (!missing.empty())
        unavailable_ = missing + " not read" + (unavailable_.empty() ? "" : "; " + unavailable_);
}

ThreadCounters::~ThreadCounters() {
    for (int fd : fds_)
        if (fd >= 0) ::close(fd);
    if (schedstat_fd_ >= 0) ::close(schedstat_fd_);
}

void ThreadCounters::read_group(const Group& g, ThreadCounterSample& out) const noexcept {
    if (g.members == 0) return;
    // PERF_FORMAT_GROUP with both times: nr, time_enabled, time_running, one value each.
    uint64_t buf[3 + kThreadCounters];
    const ssize_t want = ssize_t(sizeof(uint64_t) * size_t(3 + g.members));
    if (::read(g.leader, buf, sizeof buf) != want || buf[0] != uint64_t(g.members)) return;
    // A group the kernel ever took off the PMU to share it (time_running < time_enabled)
    // counted only part of the time: its values are not the thread's.
    if (buf[2] != buf[1]) return;
    for (int i = 0; i < g.members; ++i) {
        out.value[at(g.order[size_t(i)])] = buf[3 + i];
        out.read[at(g.order[size_t(i)])] = true;
    }
}

void ThreadCounters::read(ThreadCounterSample& out) const noexcept {
    out.read.fill(false);
    read_group(software_, out);
    read_group(hardware_, out);
    {  // the ns this thread ran, up to now (the scheduler's sum plus the running slice)
        timespec ts;
        if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0) {
            out.value[at(ThreadCounter::on_cpu_ns)] =
                uint64_t(ts.tv_sec) * 1'000'000'000 + uint64_t(ts.tv_nsec);
            out.read[at(ThreadCounter::on_cpu_ns)] = true;
        }
    }
    rusage ru;
    if (getrusage(RUSAGE_THREAD, &ru) == 0) {
        out.value[at(ThreadCounter::voluntary_switches)] = uint64_t(ru.ru_nvcsw);
        out.value[at(ThreadCounter::involuntary_switches)] = uint64_t(ru.ru_nivcsw);
        out.read[at(ThreadCounter::voluntary_switches)] = true;
        out.read[at(ThreadCounter::involuntary_switches)] = true;
        if (!out.read[at(ThreadCounter::page_faults)]) {
            out.value[at(ThreadCounter::page_faults)] = uint64_t(ru.ru_minflt + ru.ru_majflt);
            out.read[at(ThreadCounter::page_faults)] = true;
        }
    }
    if (schedstat_fd_ >= 0) {
        char text[96];
        const ssize_t n = ::pread(schedstat_fd_, text, sizeof text, 0);
        if (n > 0) {
            if (const auto s = parse_schedstat(std::string_view(text, size_t(n)))) {
                out.value[at(ThreadCounter::runqueue_ns)] = s->wait_ns;
                out.read[at(ThreadCounter::runqueue_ns)] = true;
            }
        }
    }
}

}  // namespace xfer
