#pragma once
// The calling thread's counters, read where the kernel offers them: the scheduler's view (time
// on a CPU, time waiting for one, voluntary and involuntary switches, migrations, page faults)
// and the CPU's hardware counters (instructions, cycles, cache and TLB misses) where the host
// exposes a PMU (a VM often does not). The one place they are read: [threads] gap_counters
// reads them at each return and call of a worker (launch/worker.cpp) to take the gap apart.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace xfer {

enum class ThreadCounter : uint8_t {
    on_cpu_ns,             // CLOCK_THREAD_CPUTIME_ID: ns the thread ran
    runqueue_ns,           // schedstat's run_delay: ns runnable, waiting for a CPU
    voluntary_switches,    // getrusage(RUSAGE_THREAD) ru_nvcsw: the thread blocked
    involuntary_switches,  // ru_nivcsw: the thread was preempted
    migrations,            // perf cpu-migrations
    page_faults,           // perf page-faults (minor and major)
    instructions,          // perf hardware events, where the host exposes them
    cycles,
    l1d_misses,   // L1 data cache read misses
    llc_misses,   // last-level cache read misses
    itlb_misses,  // instruction TLB read misses
    dtlb_misses,  // data TLB read misses
};
inline constexpr size_t kThreadCounters = 12;
// "on_cpu_ns", "runqueue_ns", ...: the records' keys (results.json, results.sqlite).
const char* thread_counter_name(ThreadCounter c);
std::optional<ThreadCounter> thread_counter_named(std::string_view name);

// One reading of every counter; `read[i]` false where counter i is not available here.
struct ThreadCounterSample {
    std::array<uint64_t, kThreadCounters> value{};
    std::array<bool, kThreadCounters> read{};
};

// The counters of the thread that opened them. Opening never fails as a whole: a counter the
// kernel refuses (perf_event_paranoid, a seccomp filter, a VM without a virtual PMU) is left
// unread, and unavailable() says which and why. Reading costs up to five system calls (the
// thread's CPU clock, the software and hardware perf groups, getrusage, a pread of
// schedstat): a few microseconds.
class ThreadCounters {
  public:
    // Opens them for the calling thread (perf_event_open with pid 0: this thread only).
    ThreadCounters();
    ~ThreadCounters();
    ThreadCounters(const ThreadCounters&) = delete;
    ThreadCounters& operator=(const ThreadCounters&) = delete;

    // On the thread that opened them.
    void read(ThreadCounterSample& out) const noexcept;
    // "" when every counter reads; else e.g. "instructions, cycles, ... not read: the host
    // exposes no hardware counters (perf_event_open: No such file or directory)".
    const std::string& unavailable() const { return unavailable_; }

  private:
    struct Group {
        int leader = -1;
        int members = 0;
        std::array<ThreadCounter, kThreadCounters> order{};  // the group's read order
    };
    void open_group(Group& g, std::initializer_list<ThreadCounter> wanted, std::string& why);
    void read_group(const Group& g, ThreadCounterSample& out) const noexcept;
    Group software_;
    Group hardware_;
    std::array<int, kThreadCounters> fds_{};
    int schedstat_fd_ = -1;
    std::string unavailable_;
};

// /proc/<pid>/task/<tid>/schedstat's text: "run_ns wait_ns timeslices"; nullopt otherwise.
struct Schedstat {
    uint64_t run_ns = 0, wait_ns = 0, timeslices = 0;
};
std::optional<Schedstat> parse_schedstat(std::string_view text);

}  // namespace xfer
