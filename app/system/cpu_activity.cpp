#include "system/cpu_activity.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>

#include "util/clock.hpp"

namespace xfer {

std::optional<CpuTicks> parse_proc_stat(std::string_view text) {
    std::istringstream in{std::string(text)};
    for (std::string line; std::getline(in, line);) {
        if (line.rfind("cpu ", 0) != 0) continue;
        std::istringstream fields(line.substr(4));
        CpuTicks t;
        if (!(fields >> t.user >> t.nice >> t.system >> t.idle)) return std::nullopt;
        // Older kernels stop earlier: the missing fields stay 0.
        fields >> t.iowait >> t.irq >> t.softirq >> t.steal;
        return t;
    }
    return std::nullopt;
}

HostActivity host_activity_between(const CpuTicks& before, const CpuTicks& after,
                                   int64_t own_cpu_ns, int64_t window_ns, int cpus,
                                   long ticks_per_second) {
    HostActivity a;
    a.window_ns = window_ns;
    a.cpus = cpus;
    if (window_ns <= 0 || ticks_per_second <= 0) return a;
    const auto delta = [](uint64_t x, uint64_t y) { return y >= x ? double(y - x) : 0.0; };
    const double window_s = double(window_ns) * 1e-9;
    const double busy_s = delta(before.busy(), after.busy()) / double(ticks_per_second);
    a.busy_cpus = busy_s / window_s;
    a.own_cpus = double(own_cpu_ns) * 1e-9 / window_s;
    a.others_cpus = std::max(0.0, a.busy_cpus - a.own_cpus);
    const double total = delta(before.total(), after.total());
    a.steal_fraction = total > 0 ? delta(before.steal, after.steal) / total : 0.0;
    return a;
}

void to_json(nlohmann::json& j, const HostActivity& a) {
    j = {{"window_ns", a.window_ns},     {"cpus", a.cpus},
         {"busy_cpus", a.busy_cpus},     {"own_cpus", a.own_cpus},
         {"others_cpus", a.others_cpus}, {"steal_fraction", a.steal_fraction}};
}

void from_json(const nlohmann::json& j, HostActivity& a) {
    a.window_ns = j.value("window_ns", int64_t(0));
    a.cpus = j.value("cpus", 0);
    a.busy_cpus = j.value("busy_cpus", 0.0);
    a.own_cpus = j.value("own_cpus", 0.0);
    a.others_cpus = j.value("others_cpus", 0.0);
    a.steal_fraction = j.value("steal_fraction", 0.0);
}

namespace {

std::optional<CpuTicks> read_cpu_ticks() {
    std::ifstream in("/proc/stat");
    std::stringstream text;
    text << in.rdbuf();
    return parse_proc_stat(text.str());
}

int64_t rusage_ns(int who) {
    rusage u{};
    if (getrusage(who, &u) != 0) return 0;
    const auto ns = [](const timeval& t) {
        return int64_t(t.tv_sec) * 1'000'000'000 + t.tv_usec * 1000;
    };
    return ns(u.ru_utime) + ns(u.ru_stime);
}

// This process and its children that have been waited for (worker processes).
int64_t own_cpu_ns() { return rusage_ns(RUSAGE_SELF) + rusage_ns(RUSAGE_CHILDREN); }

}  // namespace

HostActivityProbe::HostActivityProbe()
    : before_(read_cpu_ticks()), own_before_ns_(own_cpu_ns()), start_ns_(now_ns()) {}

std::optional<HostActivity> HostActivityProbe::stop() const {
    const auto after = read_cpu_ticks();
    if (!before_ || !after) return std::nullopt;
    const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    return host_activity_between(*before_, *after, own_cpu_ns() - own_before_ns_,
                                 now_ns() - start_ns_, cpus > 0 ? int(cpus) : 0,
                                 sysconf(_SC_CLK_TCK));
}

}  // namespace xfer
