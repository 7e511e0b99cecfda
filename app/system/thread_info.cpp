// How two ThreadInfos differ, in words a report can print.
#include "system/thread_info.hpp"

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

#include "system/signal_names.hpp"

namespace xfer {
namespace {


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

}  // namespace xfer
