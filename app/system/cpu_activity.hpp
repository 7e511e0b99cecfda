#pragma once
// What the whole machine's CPUs did while a run ran, from /proc/stat, against xferlab's own CPU
// time (getrusage): CPUs kept busy by other processes, and time stolen by the hypervisor. A run
// that shared its machine can measure the sharing, not the copy; the report says so.
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace xfer {

// The aggregate "cpu" line of /proc/stat, in clock ticks (USER_HZ), summed over all CPUs.
struct CpuTicks {
    uint64_t user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
    uint64_t busy() const { return user + nice + system + irq + softirq; }
    uint64_t total() const { return busy() + idle + iowait + steal; }
};

// nullopt when the text has no "cpu " line with at least user..idle.
std::optional<CpuTicks> parse_proc_stat(std::string_view text);

struct HostActivity {
    // What was watched: "copies" (the measured copies' window, to the nearest samples around
    // it) or "run" (the workers' whole span, preparation included: worker processes, whose CPU
    // time is known only once they are reaped, and runs without a measured copy).
    std::string span = "run";
    int64_t window_ns = 0;      // how long it was watched
    int cpus = 0;               // online CPUs
    double busy_cpus = 0;       // CPUs busy on average (user, nice, system, irq, softirq)
    double own_cpus = 0;        // of those, xferlab's own (its threads and reaped children)
    double others_cpus = 0;     // busy_cpus - own_cpus, at least 0
    double steal_fraction = 0;  // of all CPU time, taken by the hypervisor for other guests
};
// The field names; a key missing from an older file reads as the default above.
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(HostActivity, span, window_ns, cpus, busy_cpus,
                                                own_cpus, others_cpus, steal_fraction)

// From two /proc/stat readings and xferlab's CPU time at each, `window_ns` apart.
HostActivity host_activity_between(const CpuTicks& before, const CpuTicks& after,
                                   int64_t own_cpu_ns, int64_t window_ns, int cpus,
                                   long ticks_per_second);

// One reading: when, the machine's ticks, xferlab's CPU time so far.
struct CpuSample {
    int64_t t_ns = 0;
    CpuTicks ticks;
    int64_t own_ns = 0;
};
std::optional<CpuSample> read_cpu_sample();

// Activity between the last sample at or before `from_ns` and the first at or after `to_ns`
// (the first and last samples where none is): the window the samples can vouch for, which
// covers [from_ns, to_ns]. nullopt with fewer than two samples.
std::optional<HostActivity> activity_over(const std::vector<CpuSample>& samples, int64_t from_ns,
                                          int64_t to_ns, const std::string& span);

// Reads a sample now and then every `period_ns` on a thread of its own at SCHED_IDLE (it takes
// a CPU only when no copying thread wants one), until stop().
class HostActivitySampler {
  public:
    explicit HostActivitySampler(int64_t period_ns = 20'000'000);
    ~HostActivitySampler();
    HostActivitySampler(const HostActivitySampler&) = delete;
    HostActivitySampler& operator=(const HostActivitySampler&) = delete;
    // Stops the thread, reads a last sample and returns them all in time order.
    std::vector<CpuSample> stop();
    // Why the sampling thread could not start ("" when it runs): then only the first sample
    // and stop()'s last are taken.
    const std::string& thread_failure() const { return thread_failure_; }

  private:
    void loop();
    const int64_t period_ns_;
    std::mutex mutex_;
    std::condition_variable wake_;
    bool stopping_ = false;
    std::vector<CpuSample> samples_;
    std::string thread_failure_;
    std::thread thread_;
};

}  // namespace xfer
