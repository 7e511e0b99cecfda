#pragma once
// The values written in a form rather than as one name or number: "numa:<node>", a device list
// or "round-robin", "staggered:<duration>", a stack size or "default", signal and CPU lists,
// "fifo:<prio>", "sleep:<duration>". For each: the check of a file's value, and the value as
// results.json and the worker wire write it and read it back (without the file's checks: what
// was recorded ran).
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "settings/messages.hpp"
#include "settings/specs.hpp"
#include "settings/value_checks.hpp"

namespace xfer::settings_internal {

SettingResult parse_host_memory(const nlohmann::json& v, HostMemory& out);
HostMemory host_memory_from(const nlohmann::json& recorded);

// "round-robin" (empty) or device indices.
SettingResult parse_devices(const nlohmann::json& v, std::vector<int>& out);
nlohmann::json devices_json(const std::vector<int>& devices);
std::vector<int> devices_from(const nlohmann::json& recorded);

SettingResult parse_start(const nlohmann::json& v, StartSpec& out);
StartSpec start_from(const nlohmann::json& text, const nlohmann::json* stagger_ns);

// "default" (0) or a size of at least 16 KiB.
SettingResult parse_stack_size(const nlohmann::json& v, uint64_t& out);

SettingResult parse_signal_mask(const nlohmann::json& v, SignalMaskSpec& out);
nlohmann::json signal_mask_json(const SignalMaskSpec& m);
SignalMaskSpec signal_mask_from(const nlohmann::json& recorded);

SettingResult parse_affinity(const nlohmann::json& v, AffinitySpec& out);
nlohmann::json affinity_json(const AffinitySpec& a);
AffinitySpec affinity_from(const nlohmann::json& recorded);

SettingResult parse_policy(const nlohmann::json& v, PolicySpec& out);
PolicySpec policy_from(const nlohmann::json& recorded);

SettingResult parse_between(const nlohmann::json& v, BetweenSpec& out);
BetweenSpec between_from(const nlohmann::json& text, const nlohmann::json* sleep_ns);

// Throws std::runtime_error: `recorded` is no value of `what` ("transfer.context") that
// xferlab writes, which are `choices`.
[[noreturn]] void not_recorded_form(const nlohmann::json& recorded, const std::string& what,
                                    const std::vector<std::string>& choices);

// A name of E's table as recorded.
template <NamedEnum E>
E enum_from(const nlohmann::json& recorded, const std::string& what) {
    if (recorded.is_string())
        if (auto value = enum_named<E>(recorded.get<std::string>())) return *value;
    not_recorded_form(recorded, what, enum_choices<E>());
}

// "\"a\", \"b\", \"c\" or <last>": the names of E's table, then what a file writes instead.
template <NamedEnum E>
std::string choices_then(const std::string& last) {
    std::string s;
    for (const auto& c : enum_choices<E>()) s += "\"" + c + "\", ";
    return s.substr(0, s.size() - 2) + " or " + last;
}

// A name of E's table, or an array of CPU numbers (E's array row): threads.affinity and
// staging.affinity. `cpus` is empty unless the array was given.
template <NamedEnum E>
SettingResult parse_cpu_choice(const nlohmann::json& v, E& kind, std::vector<int>& cpus) {
    if (v.is_string()) {
        E named{};
        if (auto err = want_enum(v, named)) {
            err->message += "; or an array of CPU numbers, e.g. [0, 2]";
            return err;
        }
        kind = named;
        cpus.clear();
        return std::nullopt;
    }
    if (!v.is_array()) return expected(choices_then<E>("an array of CPU numbers, e.g. [0, 2]"), v);
    std::vector<int> list;
    if (auto err = want_int_list(v, "CPU number", "CPU numbers", kMaxCpu, list)) return err;
    kind = array_value<E>();
    cpus = std::move(list);
    return std::nullopt;
}

template <NamedEnum E>
nlohmann::json cpu_choice_json(E kind, const std::vector<int>& cpus) {
    return kind == array_value<E>() ? nlohmann::json(cpus) : nlohmann::json(to_string(kind));
}

template <NamedEnum E>
void cpu_choice_from(const nlohmann::json& recorded, const std::string& what, E& kind,
                     std::vector<int>& cpus) {
    if (recorded.is_array()) {
        kind = array_value<E>();
        cpus = recorded.get<std::vector<int>>();
        return;
    }
    kind = enum_from<E>(recorded, what);
    cpus.clear();
}

// The duration text of a form's argument: "2ms", "1.5us" (duration_text without the blank).
std::string compact_duration(int64_t ns);

}  // namespace xfer::settings_internal
