#include "system/cpu_activity.hpp"

#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <sstream>
#include <string>

#include "util/clock.hpp"
#include "util/thread_start.hpp"

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

}  // namespace

std::optional<CpuSample> read_cpu_sample() {
    const auto ticks = read_cpu_ticks();
    if (!ticks) return std::nullopt;
    // This process and its children that have been waited for (worker processes).
    return CpuSample{now_ns(), *ticks, rusage_ns(RUSAGE_SELF) + rusage_ns(RUSAGE_CHILDREN)};
}

std::optional<HostActivity> activity_over(const std::vector<CpuSample>& samples, int64_t from_ns,
                                          int64_t to_ns, const std::string& span) {
    if (samples.size() < 2) return std::nullopt;
    size_t first = 0, last = samples.size() - 1;
    for (size_t i = 0; i < samples.size(); ++i) {
        if (samples[i].t_ns <= from_ns) first = i;
    }
    for (size_t i = samples.size(); i-- > 0;) {
        if (samples[i].t_ns >= to_ns) last = i;
    }
    if (last <= first) return std::nullopt;
    const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    HostActivity a = host_activity_between(
        samples[first].ticks, samples[last].ticks, samples[last].own_ns - samples[first].own_ns,
        samples[last].t_ns - samples[first].t_ns, cpus > 0 ? int(cpus) : 0, sysconf(_SC_CLK_TCK));
    a.span = span;
    return a;
}

HostActivitySampler::HostActivitySampler(int64_t period_ns) : period_ns_(period_ns) {
    if (auto s = read_cpu_sample()) samples_.push_back(*s);
    // Without its thread the samples are the first and the one stop() reads: the window they
    // vouch for is the whole run instead of the copies', and thread_failure() says so.
    if (!samples_.empty()) thread_ = start_thread([this] { loop(); }, thread_failure_);
}

HostActivitySampler::~HostActivitySampler() { stop(); }

void HostActivitySampler::loop() {
    sched_param idle{};
    pthread_setschedparam(pthread_self(), SCHED_IDLE, &idle);
    std::unique_lock lock(mutex_);
    while (
        !wake_.wait_for(lock, std::chrono::nanoseconds(period_ns_), [this] { return stopping_; })) {
        lock.unlock();
        auto s = read_cpu_sample();
        lock.lock();
        if (s) samples_.push_back(*s);
    }
}

std::vector<CpuSample> HostActivitySampler::stop() {
    {
        std::lock_guard lock(mutex_);
        if (stopping_) return samples_;
        stopping_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
    if (!samples_.empty()) {
        if (auto s = read_cpu_sample()) samples_.push_back(*s);
    }
    return samples_;
}

}  // namespace xfer
