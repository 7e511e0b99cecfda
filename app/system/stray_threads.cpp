#include "system/stray_threads.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <mutex>
#include <optional>
#include <sstream>

namespace xfer {
namespace {

std::mutex g_mutex;

// What /proc/self/task/TID/stat says of a thread: its CPU time (utime + stime, fields 14 and
// 15) and when it started (field 22), which tells it from a later thread given the same id.
struct ThreadStat {
    int64_t cpu_ns = 0;
    unsigned long long started = 0;  // clock ticks after boot
};

std::optional<ThreadStat> thread_stat(int tid) {
    std::ifstream in("/proc/self/task/" + std::to_string(tid) + "/stat");
    std::string text;
    if (!in || !std::getline(in, text)) return std::nullopt;
    // The fields after the name, which is in parentheses and may hold blanks: field 3 first.
    const size_t close = text.rfind(')');
    if (close == std::string::npos || close + 2 > text.size()) return std::nullopt;
    std::istringstream fields(text.substr(close + 2));
    std::vector<std::string> f(20);  // fields 3 to 22
    for (auto& field : f)
        if (!(fields >> field)) return std::nullopt;
    const long ticks = sysconf(_SC_CLK_TCK);
    const long long per_tick = 1'000'000'000LL / (ticks > 0 ? ticks : 100);
    return ThreadStat{(std::stoll(f[11]) + std::stoll(f[12])) * per_tick, std::stoull(f[19])};
}

// Remembered threads with when each started, so that a reused id is not taken for one.
struct Remembered {
    StrayThread thread;
    unsigned long long started = 0;
};
std::vector<Remembered> g_threads;

}  // namespace

void remember_stray_thread(const StrayThread& thread) {
    const auto stat = thread_stat(thread.tid);
    if (!stat) return;  // it ended after all
    std::lock_guard lock(g_mutex);
    g_threads.push_back({thread, stat->started});
}

std::vector<StrayThreadNow> live_stray_threads() {
    std::vector<Remembered> remembered;
    {
        std::lock_guard lock(g_mutex);
        remembered = g_threads;
    }
    std::vector<StrayThreadNow> live;
    for (const Remembered& r : remembered)
        if (const auto stat = thread_stat(r.thread.tid); stat && stat->started == r.started)
            live.push_back({r.thread, stat->cpu_ns});
    return live;
}

std::vector<StrayThreadSeen> strays_during(const std::vector<StrayThreadNow>& before,
                                           const std::vector<StrayThreadNow>& after) {
    std::vector<StrayThreadSeen> seen;
    const auto add = [&](const StrayThread& t, int64_t cpu_ns) {
        seen.push_back({t.tid, t.name, t.left_by_run, cpu_ns});
    };
    for (const StrayThreadNow& b : before) {
        const auto a = std::find_if(after.begin(), after.end(), [&](const StrayThreadNow& x) {
            return x.thread.tid == b.thread.tid;
        });
        add(b.thread, a == after.end() ? -1 : a->cpu_ns - b.cpu_ns);
    }
    for (const StrayThreadNow& a : after) {  // remembered while the run ran
        const bool known = std::any_of(seen.begin(), seen.end(),
                                       [&](const StrayThreadSeen& s) { return s.tid == a.thread.tid; });
        if (!known) add(a.thread, -1);
    }
    return seen;
}

std::string describe_strays(const std::vector<StrayThreadSeen>& strays) {
    std::string out;
    for (const StrayThreadSeen& s : strays) {
        const std::string cpu = s.cpu_ns < 0 ? "its CPU time during this run unknown"
                                             : fmt::format("{:.2f} s of CPU during this run",
                                                           double(s.cpu_ns) / 1e9);
        out += fmt::format("{}thread '{}' (tid {}, left running by run {}; {})",
                           out.empty() ? "" : ", ", s.name, s.tid, s.left_by_run, cpu);
    }
    return out;
}

}  // namespace xfer
