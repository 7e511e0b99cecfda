// ThreadInfo read from inside the calling thread: what it actually got (stack, guard, signal
// mask, affinity, scheduling), never what a launcher asked for.
#include "results/thread_info.hpp"

#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <iterator>
#include <set>

namespace xfer {
namespace {


std::string policy_name(int policy) {
    switch (policy & ~SCHED_RESET_ON_FORK) {
        case SCHED_OTHER:
            return "other";
        case SCHED_BATCH:
            return "batch";
        case SCHED_IDLE:
            return "idle";
        case SCHED_FIFO:
            return "fifo";
        case SCHED_RR:
            return "rr";
    }
    return "policy" + std::to_string(policy);
}

struct NamedSignal {
    const char* name;
    int number;
};

// The classic Linux signals. Realtime ones are named relative to SIGRTMIN, which glibc
// decides at run time (it keeps the lowest few for itself).
constexpr NamedSignal kSignals[] = {
    {"SIGHUP", SIGHUP},   {"SIGINT", SIGINT},       {"SIGQUIT", SIGQUIT}, {"SIGILL", SIGILL},
    {"SIGTRAP", SIGTRAP}, {"SIGABRT", SIGABRT},     {"SIGBUS", SIGBUS},   {"SIGFPE", SIGFPE},
    {"SIGKILL", SIGKILL}, {"SIGUSR1", SIGUSR1},     {"SIGSEGV", SIGSEGV}, {"SIGUSR2", SIGUSR2},
    {"SIGPIPE", SIGPIPE}, {"SIGALRM", SIGALRM},     {"SIGTERM", SIGTERM}, {"SIGSTKFLT", SIGSTKFLT},
    {"SIGCHLD", SIGCHLD}, {"SIGCONT", SIGCONT},     {"SIGSTOP", SIGSTOP}, {"SIGTSTP", SIGTSTP},
    {"SIGTTIN", SIGTTIN}, {"SIGTTOU", SIGTTOU},     {"SIGURG", SIGURG},   {"SIGXCPU", SIGXCPU},
    {"SIGXFSZ", SIGXFSZ}, {"SIGVTALRM", SIGVTALRM}, {"SIGPROF", SIGPROF}, {"SIGWINCH", SIGWINCH},
    {"SIGIO", SIGIO},     {"SIGPWR", SIGPWR},       {"SIGSYS", SIGSYS},
};
// Other spellings accepted on input.
constexpr NamedSignal kAliases[] = {{"SIGIOT", SIGABRT}, {"SIGPOLL", SIGIO}, {"SIGCLD", SIGCHLD}};

std::optional<int> parse_int(const std::string& text) {
    if (text.empty() || text.size() > 6) return std::nullopt;
    int n = 0;
    for (char c : text) {
        if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
        n = n * 10 + (c - '0');
    }
    return n;
}

// "8 MiB", "256 KiB", "4100 B", "1.5 MiB": exact binary units where they divide.
std::string size_text(uint64_t bytes) {
    static const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    double v = double(bytes);
    while (v >= 1024 && u < 4) {
        v /= 1024;
        ++u;
    }
    char buf[48];
    if (v == double(uint64_t(v)))
        std::snprintf(buf, sizeof buf, "%llu %s", static_cast<unsigned long long>(v), units[u]);
    else
        std::snprintf(buf, sizeof buf, "%.2f %s", v, units[u]);
    return buf;
}

// "0-3,8,10-11"; "none" when empty.
std::string cpus_text(const std::vector<int>& cpus) {
    if (cpus.empty()) return "none";
    std::string out;
    for (size_t i = 0; i < cpus.size();) {
        size_t j = i;
        while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
        if (!out.empty()) out += ",";
        out += std::to_string(cpus[i]);
        if (j > i) out += "-" + std::to_string(cpus[j]);
        i = j + 1;
    }
    return out;
}

std::string names_text(const std::vector<int>& signals) {
    std::string out;
    for (int s : signals) out += (out.empty() ? "" : ", ") + signal_name(s);
    return out;
}

// A signal set for people: the names when few, otherwise a count and the exceptions.
std::string signals_text(const std::vector<int>& signals) {
    if (signals.empty()) return "none";
    if (signals.size() <= 6) return "{" + names_text(signals) + "}";
    std::set<int> have(signals.begin(), signals.end());
    std::vector<int> missing;
    for (int s = 1; s <= SIGRTMAX; ++s)
        if (!have.count(s)) missing.push_back(s);
    std::string out = std::to_string(signals.size()) + " signals";
    if (missing.size() <= 6)
        out += " (all but " + (missing.empty() ? "none" : names_text(missing)) + ")";
    return out;
}

std::string only_in(const std::vector<int>& a, const std::vector<int>& b) {
    std::vector<int> out;
    std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
    return out.size() <= 6 ? names_text(out) : std::to_string(out.size()) + " signals";
}

}  // namespace

// sysfs lists the node as a "node<M>" entry in the CPU's folder: no libnuma needed here.
int numa_node_of_cpu(int cpu) {
    if (cpu < 0) return -1;
    std::error_code ec;
    std::filesystem::directory_iterator it("/sys/devices/system/cpu/cpu" + std::to_string(cpu), ec);
    for (; !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
        std::string name = it->path().filename().string();
        if (name.size() > 4 && name.compare(0, 4, "node") == 0 &&
            std::isdigit(static_cast<unsigned char>(name[4])))
            return std::stoi(name.substr(4));
    }
    return -1;
}

std::string signal_name(int signo) {
    for (const auto& s : kSignals)
        if (s.number == signo) return s.name;
    if (signo == SIGRTMIN) return "SIGRTMIN";
    if (signo == SIGRTMAX) return "SIGRTMAX";
    if (signo > SIGRTMIN && signo < SIGRTMAX) return "SIGRTMIN+" + std::to_string(signo - SIGRTMIN);
    return "SIG" + std::to_string(signo);
}

std::optional<int> signal_number(const std::string& text) {
    std::string name;
    for (char c : text) name += char(std::toupper(static_cast<unsigned char>(c)));
    if (name.rfind("SIG", 0) != 0) name = "SIG" + name;  // "INT" and "SIGINT" alike
    for (const auto& s : kSignals)
        if (name == s.name) return s.number;
    for (const auto& s : kAliases)
        if (name == s.name) return s.number;
    auto in_range = [](int n) -> std::optional<int> {
        if (n >= 1 && n <= SIGRTMAX) return n;
        return std::nullopt;
    };
    if (name == "SIGRTMIN") return SIGRTMIN;
    if (name == "SIGRTMAX") return SIGRTMAX;
    if (name.rfind("SIGRTMIN+", 0) == 0) {
        auto k = parse_int(name.substr(9));
        if (k && SIGRTMIN + *k <= SIGRTMAX) return SIGRTMIN + *k;
        return std::nullopt;
    }
    if (name.rfind("SIGRTMAX-", 0) == 0) {
        auto k = parse_int(name.substr(9));
        if (k && SIGRTMAX - *k >= SIGRTMIN) return SIGRTMAX - *k;
        return std::nullopt;
    }
    if (auto n = parse_int(name.substr(3))) return in_range(*n);  // "SIG40", "40"
    return std::nullopt;
}

std::vector<std::string> thread_info_differences(const ThreadInfo& a, const ThreadInfo& b) {
    std::vector<std::string> out;
    auto add = [&](const std::string& field, const std::string& va, const std::string& vb) {
        out.push_back(field + ": " + va + " vs " + vb);
    };
    if (a.stack_size != b.stack_size)
        add("stack_size", size_text(a.stack_size), size_text(b.stack_size));
    if (a.guard_size != b.guard_size)
        add("guard_size", size_text(a.guard_size), size_text(b.guard_size));
    if (a.blocked_signals != b.blocked_signals) {
        std::vector<int> sa = a.blocked_signals, sb = b.blocked_signals;
        std::sort(sa.begin(), sa.end());
        std::sort(sb.begin(), sb.end());
        std::string line = signals_text(sa) + " vs " + signals_text(sb);
        // Where a side is summarized as a count and neither is empty, name what differs.
        if (!sa.empty() && !sb.empty() && (sa.size() > 6 || sb.size() > 6)) {
            std::string ea = only_in(sa, sb), eb = only_in(sb, sa);
            if (!ea.empty()) line += " (only first: " + ea + ")";
            if (!eb.empty()) line += " (only second: " + eb + ")";
        }
        out.push_back("blocked_signals: " + line);
    }
    if (a.cpus != b.cpus) add("cpus", cpus_text(a.cpus), cpus_text(b.cpus));
    if (a.policy != b.policy) add("policy", a.policy, b.policy);
    if (a.priority != b.priority)
        add("priority", std::to_string(a.priority), std::to_string(b.priority));
    if (a.nice != b.nice) add("nice", std::to_string(a.nice), std::to_string(b.nice));
    if (a.python_thread != b.python_thread)
        add("python_thread", a.python_thread ? "yes" : "no", b.python_thread ? "yes" : "no");
    if (a.gil_held && b.gil_held && *a.gil_held != *b.gil_held)
        add("gil_held", *a.gil_held ? "yes" : "no", *b.gil_held ? "yes" : "no");
    return out;
}

ThreadInfo capture_thread_info(const std::string& launcher, int worker) {
    ThreadInfo info;
    info.launcher = launcher;
    info.worker = worker;
    info.pid = int(getpid());
    info.tid = int(gettid());

    char name[64] = {};
    if (pthread_getname_np(pthread_self(), name, sizeof name) == 0) info.name = name;
    char host[256] = {};
    if (gethostname(host, sizeof host - 1) == 0) info.hostname = host;

    // For the main thread glibc derives the stack from RLIMIT_STACK and the mapping: what the
    // main thread may grow to, which is what it got.
    pthread_attr_t attr;
    if (pthread_getattr_np(pthread_self(), &attr) == 0) {
        size_t stack = 0, guard = 0;
        if (pthread_attr_getstacksize(&attr, &stack) == 0) info.stack_size = stack;
        if (pthread_attr_getguardsize(&attr, &guard) == 0) info.guard_size = guard;
        pthread_attr_destroy(&attr);
    }

    sigset_t mask;
    sigemptyset(&mask);
    if (pthread_sigmask(SIG_BLOCK, nullptr, &mask) == 0) {
        for (int s = 1; s <= SIGRTMAX; ++s)
            if (sigismember(&mask, s) == 1) info.blocked_signals.push_back(s);
    }

    cpu_set_t cpus;
    CPU_ZERO(&cpus);
    if (sched_getaffinity(0, sizeof cpus, &cpus) == 0) {
        for (int c = 0; c < CPU_SETSIZE; ++c)
            if (CPU_ISSET(c, &cpus)) info.cpus.push_back(c);
    }

    // pid 0 in the sched_* and priority calls is the calling thread on Linux.
    info.policy = policy_name(sched_getscheduler(0));
    sched_param param{};
    if (sched_getparam(0, &param) == 0) info.priority = param.sched_priority;
    errno = 0;
    int nice = getpriority(PRIO_PROCESS, id_t(info.tid));
    if (errno == 0) info.nice = nice;

    info.numa_node = numa_node_of_cpu(sched_getcpu());
    return info;
}

}  // namespace xfer
