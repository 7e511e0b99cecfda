#pragma once
// What the whole machine's CPUs did while a run ran, from /proc/stat, against xferlab's own CPU
// time (getrusage): CPUs kept busy by other processes, and time stolen by the hypervisor. A run
// that shared its machine can measure the sharing, not the copy; the report says so.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>

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
    int64_t window_ns = 0;      // how long it was watched
    int cpus = 0;               // online CPUs
    double busy_cpus = 0;       // CPUs busy on average (user, nice, system, irq, softirq)
    double own_cpus = 0;        // of those, xferlab's own (its threads and reaped children)
    double others_cpus = 0;     // busy_cpus - own_cpus, at least 0
    double steal_fraction = 0;  // of all CPU time, taken by the hypervisor for other guests
};
void to_json(nlohmann::json& j, const HostActivity& a);
void from_json(const nlohmann::json& j, HostActivity& a);

// From two /proc/stat readings and xferlab's CPU time at each, `window_ns` apart.
HostActivity host_activity_between(const CpuTicks& before, const CpuTicks& after,
                                   int64_t own_cpu_ns, int64_t window_ns, int cpus,
                                   long ticks_per_second);

// Watches from construction to stop(); nullopt where /proc/stat cannot be read.
class HostActivityProbe {
  public:
    HostActivityProbe();
    std::optional<HostActivity> stop() const;

  private:
    std::optional<CpuTicks> before_;
    int64_t own_before_ns_ = 0;
    int64_t start_ns_ = 0;
};

}  // namespace xfer
