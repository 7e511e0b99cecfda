#include "system/signal_names.hpp"

#include <cctype>
#include <csignal>

namespace xfer {
namespace {

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

}  // namespace

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

}  // namespace xfer
