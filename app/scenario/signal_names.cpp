#include "scenario/signal_names.hpp"

#include <csignal>
#include <utility>

namespace xfer::scenario_internal {
namespace {

const std::vector<std::pair<std::string, int>>& table() {
    static const std::vector<std::pair<std::string, int>> t = {
        {"SIGHUP", SIGHUP},     {"SIGINT", SIGINT},       {"SIGQUIT", SIGQUIT},
        {"SIGILL", SIGILL},     {"SIGTRAP", SIGTRAP},     {"SIGABRT", SIGABRT},
        {"SIGBUS", SIGBUS},     {"SIGFPE", SIGFPE},       {"SIGKILL", SIGKILL},
        {"SIGUSR1", SIGUSR1},   {"SIGSEGV", SIGSEGV},     {"SIGUSR2", SIGUSR2},
        {"SIGPIPE", SIGPIPE},   {"SIGALRM", SIGALRM},     {"SIGTERM", SIGTERM},
#ifdef SIGSTKFLT
        {"SIGSTKFLT", SIGSTKFLT},
#endif
        {"SIGCHLD", SIGCHLD},   {"SIGCONT", SIGCONT},     {"SIGSTOP", SIGSTOP},
        {"SIGTSTP", SIGTSTP},   {"SIGTTIN", SIGTTIN},     {"SIGTTOU", SIGTTOU},
        {"SIGURG", SIGURG},     {"SIGXCPU", SIGXCPU},     {"SIGXFSZ", SIGXFSZ},
        {"SIGVTALRM", SIGVTALRM}, {"SIGPROF", SIGPROF},   {"SIGWINCH", SIGWINCH},
        {"SIGIO", SIGIO},
#ifdef SIGPWR
        {"SIGPWR", SIGPWR},
#endif
        {"SIGSYS", SIGSYS},
    };
    return t;
}

// "12" -> 12; anything else (empty, sign, letters, too long) -> nullopt.
std::optional<int> small_number(const std::string& s) {
    if (s.empty() || s.size() > 3) return std::nullopt;
    int n = 0;
    for (char c : s) {
        if (c < '0' || c > '9') return std::nullopt;
        n = n * 10 + (c - '0');
    }
    return n;
}

}  // namespace

std::optional<int> scenario_signal_number(const std::string& name) {
    for (const auto& [n, signo] : table()) {
        if (n == name) return signo;
    }
    // Realtime signals: their numbers depend on the C library, so they are named relative to
    // SIGRTMIN/SIGRTMAX as in signal(7).
    if (name == "SIGRTMIN") return SIGRTMIN;
    if (name == "SIGRTMAX") return SIGRTMAX;
    if (name.rfind("SIGRTMIN+", 0) == 0) {
        auto n = small_number(name.substr(9));
        if (n && SIGRTMIN + *n <= SIGRTMAX) return SIGRTMIN + *n;
    }
    if (name.rfind("SIGRTMAX-", 0) == 0) {
        auto n = small_number(name.substr(9));
        if (n && SIGRTMAX - *n >= SIGRTMIN) return SIGRTMAX - *n;
    }
    return std::nullopt;
}

std::string scenario_signal_name(int signo) {
    for (const auto& [n, s] : table()) {
        if (s == signo) return n;
    }
    if (signo >= SIGRTMIN && signo <= SIGRTMAX) {
        return signo == SIGRTMIN ? "SIGRTMIN" : "SIGRTMIN+" + std::to_string(signo - SIGRTMIN);
    }
    return "SIG" + std::to_string(signo);
}

const std::vector<std::string>& scenario_signal_names() {
    static const std::vector<std::string> names = [] {
        std::vector<std::string> v;
        for (const auto& [n, s] : table()) v.push_back(n);
        v.push_back("SIGRTMIN");
        v.push_back("SIGRTMAX");
        return v;
    }();
    return names;
}

}  // namespace xfer::scenario_internal
