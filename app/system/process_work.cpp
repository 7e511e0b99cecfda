#include "system/process_work.hpp"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "util/clock.hpp"

namespace xfer {
namespace fs = std::filesystem;
namespace {

// /proc/.../stat: the name (in parentheses, may hold blanks), then fields from 3 on.
struct StatFields {
    std::string name;
    char state = '?';
    int ppid = 0;
    int64_t cpu_ns = 0;  // utime + stime
    unsigned long long started = 0;
};

bool read_stat(const fs::path& path, StatFields& out) {
    std::ifstream in(path);
    std::string text;
    if (!in || !std::getline(in, text)) return false;
    const size_t open = text.find('('), close = text.rfind(')');
    if (open == std::string::npos || close == std::string::npos || close + 2 > text.size())
        return false;
    out.name = text.substr(open + 1, close - open - 1);
    std::istringstream fields(text.substr(close + 2));
    std::vector<std::string> f(20);  // fields 3 to 22
    for (auto& field : f)
        if (!(fields >> field)) return false;
    const long ticks = sysconf(_SC_CLK_TCK);
    const long long per_tick = 1'000'000'000LL / (ticks > 0 ? ticks : 100);
    try {
        out.state = f[0].empty() ? '?' : f[0][0];
        out.ppid = std::stoi(f[1]);
        out.cpu_ns = (std::stoll(f[11]) + std::stoll(f[12])) * per_tick;
        out.started = std::stoull(f[19]);
    } catch (const std::exception&) {
        return false;
    }
    return true;
}

// Time on a CPU in ns (schedstat's first field): finer than stat's 10 ms ticks, which a short
// gap between two runs would show as 0 or 1. -1 where the kernel does not keep it.
int64_t schedstat_ns(const fs::path& path) {
    std::ifstream in(path);
    long long ns = -1;
    if (!(in >> ns)) return -1;
    return ns;
}

// A task's CPU time: schedstat where there is one, else stat's.
int64_t cpu_of(const fs::path& task, const StatFields& stat) {
    const int64_t fine = schedstat_ns(task / "schedstat");
    return fine >= 0 ? fine : stat.cpu_ns;
}

// A child process's CPU time: all its threads'.
int64_t process_cpu(const fs::path& proc, const StatFields& stat) {
    int64_t sum = 0;
    std::error_code ec;
    for (const auto& task : fs::directory_iterator(proc / "task", ec)) {
        const int64_t ns = schedstat_ns(task.path() / "schedstat");
        if (ns < 0) return stat.cpu_ns;
        sum += ns;
    }
    return ec ? stat.cpu_ns : sum;
}

bool all_digits(const std::string& s) {
    return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos;
}

// This process's children: each thread's /proc children list (the kernel's, no scan of /proc),
// else every process of /proc (a kernel without CONFIG_PROC_CHILDREN).
std::vector<int> child_pids() {
    std::vector<int> pids;
    std::error_code ec;
    bool listed = false;
    for (const auto& task : fs::directory_iterator("/proc/self/task", ec)) {
        std::ifstream in(task.path() / "children");
        if (!in) continue;
        listed = true;
        for (int pid = 0; in >> pid;) pids.push_back(pid);
    }
    if (listed) return pids;
    for (const auto& proc : fs::directory_iterator("/proc", ec))
        if (all_digits(proc.path().filename())) pids.push_back(std::stoi(proc.path().filename()));
    return pids;
}

}  // namespace

WorkSnapshot process_work_now() {
    WorkSnapshot out;
    out.taken_ns = now_ns();
    const int self = int(::gettid());
    std::error_code ec;
    for (const auto& task : fs::directory_iterator("/proc/self/task", ec)) {
        const std::string id = task.path().filename();
        StatFields stat;
        if (!all_digits(id) || std::stoi(id) == self || !read_stat(task.path() / "stat", stat))
            continue;
        out.units.push_back(
            {std::stoi(id), false, stat.name, stat.started, cpu_of(task.path(), stat)});
    }
    const int pid = int(::getpid());
    for (const int child : child_pids()) {
        const fs::path proc = "/proc/" + std::to_string(child);
        StatFields stat;
        if (!read_stat(proc / "stat", stat) || stat.ppid != pid || stat.state == 'Z') continue;
        out.units.push_back({child, true, stat.name, stat.started, process_cpu(proc, stat)});
    }
    return out;
}

const WorkUnit* find_unit(const WorkSnapshot& snapshot, const WorkUnit& unit) {
    for (const WorkUnit& u : snapshot.units)
        if (u.id == unit.id && u.process == unit.process && u.started == unit.started) return &u;
    return nullptr;
}

bool xferlab_thread_name(const std::string& name) { return name.rfind("xfer-", 0) == 0; }

}  // namespace xfer
