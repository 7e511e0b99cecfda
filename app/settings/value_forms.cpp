#include "settings/value_forms.hpp"

#include <algorithm>
#include <csignal>
#include <stdexcept>

#include "settings/value_checks.hpp"
#include "system/signal_names.hpp"
#include "util/suggest.hpp"
#include "util/units.hpp"

namespace xfer {

std::string to_string(const HostMemory& m) {
    return enum_text(m.kind, std::to_string(m.numa_node));
}

std::string to_string(const StartSpec& s) {
    return enum_text(s.kind, settings_internal::compact_duration(s.stagger_ns));
}

std::string to_string(const PolicySpec& p) {
    return enum_text(p.policy, std::to_string(p.priority));
}

std::string to_string(const BetweenSpec& b) {
    return enum_text(b.kind, settings_internal::compact_duration(b.sleep_ns));
}

namespace settings_internal {

using nlohmann::json;

namespace {

constexpr std::string_view kRoundRobin = "round-robin";
constexpr std::string_view kDefaultStack = "default";
constexpr int kMaxNumaNode = 1023;

// A value of E written "name:<argument>", with `argument` read by `arg`; nullopt when `v` is no
// such form (then the caller tries the bare names).
template <NamedEnum E, class Arg>
std::optional<SettingResult> with_argument(const json& v, Arg arg) {
    if (!v.is_string()) return std::nullopt;
    auto form = enum_with_argument<E>(v.get<std::string>());
    if (!form) return std::nullopt;
    return arg(form->first, form->second);
}

int64_t recorded_ns(const json* exact, const std::string& argument) {
    if (exact && exact->is_number_integer()) return exact->get<int64_t>();
    return parse_duration_ns(argument).value_or(0);
}

}  // namespace

std::string compact_duration(int64_t ns) {
    std::string s = duration_text(ns);
    s.erase(std::remove(s.begin(), s.end(), ' '), s.end());
    return s;
}

void not_recorded_form(const json& recorded, const std::string& what,
                       const std::vector<std::string>& choices) {
    throw std::runtime_error(what + " = " + describe(recorded) +
                             " is not a value xferlab writes (" + quoted_list(choices) + ")");
}

// ---- transfer.host_memory ---------------------------------------------------------------------

SettingResult parse_host_memory(const json& v, HostMemory& out) {
    if (auto form = with_argument<HostMemoryKind>(
            v, [&](HostMemoryKind kind, const std::string& arg) -> SettingResult {
                auto node = plain_int(arg);
                if (!node || *node > kMaxNumaNode) {
                    return expected(enum_choice(kind) +
                                        " with a NUMA node number from 0 to 1023, e.g. \"" +
                                        enum_text(kind, "0") + "\"",
                                    v);
                }
                out = HostMemory{kind, *node};
                return std::nullopt;
            }))
        return *form;
    HostMemoryKind kind{};
    if (auto err = want_enum(v, kind)) return err;
    out = HostMemory{kind, -1};
    return std::nullopt;
}

HostMemory host_memory_from(const json& recorded) {
    HostMemory m;
    if (parse_host_memory(recorded, m))
        not_recorded_form(recorded, "transfer.host_memory", enum_choices<HostMemoryKind>());
    return m;
}

// ---- transfer.devices -------------------------------------------------------------------------

SettingResult parse_devices(const json& v, std::vector<int>& out) {
    const std::string what = "\"round-robin\" or an array of device indices, e.g. [0, 1]";
    if (v.is_string()) {
        if (v.get<std::string>() == kRoundRobin) {
            out.clear();
            return std::nullopt;
        }
        SettingError err = expected(what, v);
        err.message += did_you_mean(v.get<std::string>(), {std::string(kRoundRobin)});
        return err;
    }
    if (!v.is_array()) return expected(what, v);
    return want_int_list(v, "device index", "device indices", 1023, out);
}

json devices_json(const std::vector<int>& devices) {
    return devices.empty() ? json(kRoundRobin) : json(devices);
}

std::vector<int> devices_from(const json& recorded) {
    if (recorded.is_array()) return recorded.get<std::vector<int>>();
    if (recorded != kRoundRobin)
        not_recorded_form(recorded, "transfer.devices", {std::string(kRoundRobin)});
    return {};
}

// ---- threads.start ----------------------------------------------------------------------------

SettingResult parse_start(const json& v, StartSpec& out) {
    if (auto form = with_argument<StartKind>(
            v, [&](StartKind kind, const std::string& arg) -> SettingResult {
                int64_t ns = 0;
                if (auto err = want_duration_arg(v, enum_choice(kind), arg, ns)) return err;
                out = StartSpec{kind, ns};
                return std::nullopt;
            }))
        return *form;
    StartKind kind{};
    if (auto err = want_enum(v, kind)) return err;
    out = StartSpec{kind, 0};
    return std::nullopt;
}

StartSpec start_from(const json& text, const json* stagger_ns) {
    StartSpec s;
    if (text.is_string()) {
        if (auto form = enum_with_argument<StartKind>(text.get<std::string>()))
            return StartSpec{form->first, recorded_ns(stagger_ns, form->second)};
    }
    s.kind = enum_from<StartKind>(text, "threads.start");
    return s;
}

// ---- threads.stack_size -----------------------------------------------------------------------

SettingResult parse_stack_size(const json& v, uint64_t& out) {
    const std::string what = "\"default\" or a size of at least 16 KiB, e.g. \"256KiB\"";
    if (v.is_string() && v.get<std::string>() == kDefaultStack) {
        out = 0;
        return std::nullopt;
    }
    uint64_t size = 0;
    if (auto err = want_size(v, what, size)) return err;
    if (size < kMinStack) {
        return SettingError{"expected " + what + "; got " + describe(v) + " (" + format_size(size) +
                            ", below the 16 KiB a thread needs)"};
    }
    out = size;
    return std::nullopt;
}

// ---- threads.signal_mask ----------------------------------------------------------------------

SettingResult parse_signal_mask(const json& v, SignalMaskSpec& out) {
    if (v.is_string()) {
        SignalMaskKind kind{};
        if (auto err = want_enum(v, kind)) {
            err->message += "; or an array of signal names, e.g. [\"SIGINT\", \"SIGTERM\"]";
            return err;
        }
        out = SignalMaskSpec{kind, {}};
        return std::nullopt;
    }
    if (!v.is_array())
        return expected(choices_then<SignalMaskKind>("an array of signal names, e.g. [\"SIGINT\"]"),
                        v);
    if (v.empty()) {
        return SettingError{"an empty list blocks nothing: write \"" +
                            to_string(SignalMaskKind::unblock_all) + "\" (block nothing) or \"" +
                            to_string(SignalMaskKind::inherit) + "\""};
    }
    std::vector<int> signals;
    for (size_t i = 0; i < v.size(); ++i) {
        const json& e = v[i];
        if (!e.is_string()) {
            return SettingError{expected("a signal name such as \"SIGINT\"", e).message, int(i)};
        }
        const std::string name = e.get<std::string>();
        auto signo = signal_number(name);
        if (!signo) {
            return SettingError{"unknown signal " + describe(e) +
                                    did_you_mean(name, known_signal_names()) +
                                    "; names are as in signal(7): \"SIGINT\", \"SIGUSR1\", "
                                    "\"SIGRTMIN+2\", ...",
                                int(i)};
        }
        if (*signo == SIGKILL || *signo == SIGSTOP) {
            return SettingError{signal_name(*signo) +
                                    " cannot be blocked (the kernel ignores it "
                                    "in a mask)",
                                int(i)};
        }
        if (*signo < SIGRTMIN && signal_name(*signo) == "SIG" + std::to_string(*signo)) {
            // 32 and 33 on glibc: its own cancellation and setxid signals, which it refuses to
            // put in a mask.
            return SettingError{describe(e) +
                                    " is reserved by the C library (realtime signals "
                                    "start at SIGRTMIN)",
                                int(i)};
        }
        if (std::find(signals.begin(), signals.end(), *signo) == signals.end()) {
            signals.push_back(*signo);
        }
    }
    out = SignalMaskSpec{SignalMaskKind::list, std::move(signals)};
    return std::nullopt;
}

json signal_mask_json(const SignalMaskSpec& m) {
    if (m.kind != SignalMaskKind::list) return to_string(m.kind);
    json names = json::array();
    for (int s : m.signals) names.push_back(signal_name(s));
    return names;
}

SignalMaskSpec signal_mask_from(const json& recorded) {
    if (!recorded.is_array())
        return SignalMaskSpec{enum_from<SignalMaskKind>(recorded, "threads.signal_mask"), {}};
    SignalMaskSpec m{SignalMaskKind::list, {}};
    for (const json& name : recorded) {
        auto signo = name.is_string() ? signal_number(name.get<std::string>()) : std::nullopt;
        if (!signo) not_recorded_form(name, "threads.signal_mask", {"a signal name"});
        m.signals.push_back(*signo);
    }
    return m;
}

// ---- threads.affinity -------------------------------------------------------------------------

SettingResult parse_affinity(const json& v, AffinitySpec& out) {
    return parse_cpu_choice(v, out.kind, out.cpus);
}

json affinity_json(const AffinitySpec& a) { return cpu_choice_json(a.kind, a.cpus); }

AffinitySpec affinity_from(const json& recorded) {
    AffinitySpec a;
    cpu_choice_from(recorded, "threads.affinity", a.kind, a.cpus);
    return a;
}

// ---- threads.policy ---------------------------------------------------------------------------

SettingResult parse_policy(const json& v, PolicySpec& out) {
    if (auto form = with_argument<SchedPolicy>(
            v, [&](SchedPolicy policy, const std::string& arg) -> SettingResult {
                auto prio = plain_int(arg);
                if (!prio || *prio < 1 || *prio > 99) {
                    return expected(enum_choice(policy) + " with a priority from 1 to 99, e.g. \"" +
                                        enum_text(policy, "10") + "\"",
                                    v);
                }
                out = PolicySpec{policy, *prio};
                return std::nullopt;
            }))
        return *form;
    SchedPolicy policy{};
    if (auto err = want_enum(v, policy)) return err;
    out = PolicySpec{policy, 0};
    return std::nullopt;
}

PolicySpec policy_from(const json& recorded) {
    if (recorded.is_string()) {
        if (auto form = enum_with_argument<SchedPolicy>(recorded.get<std::string>()))
            return PolicySpec{form->first, plain_int(form->second).value_or(0)};
    }
    return PolicySpec{enum_from<SchedPolicy>(recorded, "threads.policy"), 0};
}

// ---- threads.between --------------------------------------------------------------------------

SettingResult parse_between(const json& v, BetweenSpec& out) {
    if (auto form = with_argument<BetweenKind>(
            v, [&](BetweenKind kind, const std::string& arg) -> SettingResult {
                int64_t ns = 0;
                if (auto err = want_duration_arg(v, enum_choice(kind), arg, ns)) return err;
                out = BetweenSpec{kind, ns};
                return std::nullopt;
            }))
        return *form;
    BetweenKind kind{};
    if (auto err = want_enum(v, kind)) return err;
    out = BetweenSpec{kind, 0};
    return std::nullopt;
}

BetweenSpec between_from(const json& text, const json* sleep_ns) {
    if (text.is_string()) {
        if (auto form = enum_with_argument<BetweenKind>(text.get<std::string>()))
            return BetweenSpec{form->first, recorded_ns(sleep_ns, form->second)};
    }
    return BetweenSpec{enum_from<BetweenKind>(text, "threads.between"), 0};
}

}  // namespace settings_internal
}  // namespace xfer
