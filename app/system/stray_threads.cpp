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

std::optional<ThreadStat> thread_stat(int tid, bool process = false) {
    const std::string dir =
        process ? "/proc/" + std::to_string(tid) : "/proc/self/task/" + std::to_string(tid);
    std::ifstream in(dir + "/stat");
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
    if (process && f[0] == "Z") return std::nullopt;  // ended, not yet reaped
    return ThreadStat{(std::stoll(f[11]) + std::stoll(f[12])) * per_tick, std::stoull(f[19])};
}

// A share of CPU below which work seen only is taken for idle: 5% of the run, and 20 ms.
bool busy_during(int64_t cpu_ns, int64_t run_ns) {
    return cpu_ns >= 20'000'000 && cpu_ns * 20 >= run_ns;
}

// Remembered threads with when each started, so that a reused id is not taken for one.
struct Remembered {
    StrayThread thread;
    unsigned long long started = 0;
};
std::vector<Remembered> g_threads;

}  // namespace

void remember_stray_thread(const StrayThread& thread) {
    const auto stat = thread_stat(thread.tid, thread.process);
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
        if (const auto stat = thread_stat(r.thread.tid, r.thread.process);
            stat && stat->started == r.started)
            live.push_back({r.thread, stat->cpu_ns});
    return live;
}

std::vector<StrayThreadSeen> strays_during(const std::vector<StrayThreadNow>& before,
                                           const std::vector<StrayThreadNow>& after,
                                           int64_t run_ns) {
    std::vector<StrayThreadSeen> seen;
    const auto add = [&](const StrayThread& t, int64_t cpu_ns) {
        if (t.seen_only && !busy_during(cpu_ns, run_ns)) return;  // idle while the run measured
        seen.push_back({t.tid, t.name, t.left_by_run, cpu_ns, t.process});
    };
    for (const StrayThreadNow& b : before) {
        const auto a = std::find_if(after.begin(), after.end(), [&](const StrayThreadNow& x) {
            return x.thread.tid == b.thread.tid;
        });
        add(b.thread, a == after.end() ? -1 : a->cpu_ns - b.cpu_ns);
    }
    for (const StrayThreadNow& a : after) {  // remembered while the run ran
        const bool known = std::any_of(before.begin(), before.end(), [&](const StrayThreadNow& b) {
            return b.thread.tid == a.thread.tid;
        });
        if (!known) add(a.thread, -1);
    }
    return seen;
}

std::vector<WorkUnit> work_left(const WorkSnapshot& at_start, const WorkSnapshot& at_end) {
    std::vector<Remembered> remembered;
    {
        std::lock_guard lock(g_mutex);
        remembered = g_threads;
    }
    std::vector<WorkUnit> left;
    for (const WorkUnit& u : at_end.units) {
        if (find_unit(at_start, u) || (!u.process && xferlab_thread_name(u.name))) continue;
        const bool known =
            std::any_of(remembered.begin(), remembered.end(), [&](const Remembered& r) {
                return r.thread.tid == u.id && r.thread.process == u.process &&
                       r.started == u.started;
            });
        if (!known) left.push_back(u);
    }
    return left;
}

int64_t UnnamedWork::short_by(int64_t now_ns) const {
    const bool fresh =
        std::any_of(watched_.begin(), watched_.end(), [](const Watched& w) { return !w.gap_seen; });
    return fresh ? std::max<int64_t>(0, kFirstGapNs - (now_ns - last_end_.taken_ns)) : 0;
}

void UnnamedWork::at_run_start(const WorkSnapshot& now) {
    const int64_t gap_ns = now.taken_ns - last_end_.taken_ns;
    if (gap_ns <= 0) return;
    std::erase_if(watched_, [&](Watched& w) {
        w.gap_seen = true;
        const WorkUnit* still = find_unit(now, w.unit);
        if (!still) return true;  // ended
        // A tenth of the gap: a spinning leftover gets far more even on a loaded machine (a
        // third of a 22 ms gap with two other plans on both cores), an idle one nothing.
        if ((still->cpu_ns - w.unit.cpu_ns) * 10 < gap_ns) return false;  // idle: still watched
        std::lock_guard lock(g_mutex);
        g_threads.push_back(
            {{w.unit.id, w.unit.name, w.left_by, w.unit.process, /*seen_only=*/true}, w.unit.started});
        return true;
    });
}

void UnnamedWork::at_run_end(const WorkSnapshot& at_start, const WorkSnapshot& at_end, int run) {
    // Bounded: a library's idle pool would otherwise be watched by every run of a long plan.
    constexpr size_t kMostWatched = 256;
    std::vector<Watched> still;
    for (const Watched& w : watched_)
        if (const WorkUnit* now = find_unit(at_end, w.unit))
            still.push_back({*now, w.left_by, w.gap_seen});
    for (const WorkUnit& u : work_left(at_start, at_end))
        if (still.size() < kMostWatched) still.push_back({u, run});
    watched_ = std::move(still);
    last_end_ = at_end;
}

std::string describe_strays(const std::vector<StrayThreadSeen>& strays) {
    std::string out;
    for (const StrayThreadSeen& s : strays) {
        const std::string cpu = s.cpu_ns < 0 ? "its CPU time during this run unknown"
                                             : fmt::format("{:.2f} s of CPU during this run",
                                                           double(s.cpu_ns) / 1e9);
        out += fmt::format("{}{} '{}' ({} {}, left running by run {}; {})", out.empty() ? "" : ", ",
                           s.process ? "child process" : "thread", s.name,
                           s.process ? "pid" : "tid", s.tid, s.left_by_run, cpu);
    }
    return out;
}

}  // namespace xfer
