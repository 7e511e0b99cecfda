#pragma once
// The checks a key's value goes through (settings/setting_keys.cpp): integers in a range,
// sizes, names from an enum's table, lists of indices. Each returns the message of a refused
// value (settings/messages.hpp) and leaves `out` alone then.
#include <climits>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "settings/enum_table.hpp"
#include "settings/messages.hpp"

namespace xfer::settings_internal {

constexpr int kMaxThreads = 4096;
constexpr uint64_t kMinStack = 16 * 1024;  // PTHREAD_STACK_MIN on x86-64
constexpr int kMaxCpu = 1023;              // cpu_set_t holds CPUs 0..1023

// The largest size any key takes: more than any machine's memory, and small enough that a
// run's whole need (kMaxThreads workers x two buffers x this, rounded up to huge pages) stays
// far from 2^64: the memory checks compare it instead of wrapping around to "fits".
constexpr uint64_t kMaxSize = uint64_t(1) << 50;  // 1 PiB = 1024 TiB
static_assert(kMaxSize * 2 * uint64_t(kMaxThreads) <= uint64_t(1) << 63,
              "a run's buffers must leave half of uint64_t's range for rounding and extras");

// "<what> is -1: it cannot be negative" where `v` is a negative number, else "": the JSON
// library reads -1 into an unsigned integer as 2^64-1 without a word, so a reader of a size or
// count asks first.
inline std::string negative_problem(const nlohmann::json& v, const std::string& what) {
    if (v.is_number() && !v.is_number_unsigned() && v.get<double>() < 0)
        return what + " is " + v.dump() + ": it cannot be negative";
    return "";
}

// Plain decimal digits, as in "numa:1" or "fifo:10"; nullopt for anything else.
std::optional<int> plain_int(const std::string& s);

// An integer in [lo, hi]; `why` explains a bound that is not obvious (a sanity limit).
SettingResult want_int(const nlohmann::json& v, int64_t lo, int64_t hi, int& out,
                       const std::string& why = "");

SettingResult want_bool(const nlohmann::json& v, bool& out);

// A size from a string ("64MiB") or an integer number of bytes, at most kMaxSize.
SettingResult want_size(const nlohmann::json& v, const std::string& what, uint64_t& out);

// The duration of "prefix:<duration>"; `form` names the form in the message.
SettingResult want_duration_arg(const nlohmann::json& v, const std::string& form,
                                const std::string& arg, int64_t& out);

// A non-empty array of integers in [0, hi], e.g. devices or CPUs.
SettingResult want_int_list(const nlohmann::json& v, const std::string& one,
                            const std::string& many, int hi, std::vector<int>& out);

// One of the bare names of E's table.
template <NamedEnum E>
SettingResult want_enum(const nlohmann::json& v, E& out) {
    std::optional<E> value;
    if (v.is_string()) value = enum_named<E>(v.get<std::string>());
    if (!value) return not_one_of(v, enum_choices<E>());
    out = *value;
    return std::nullopt;
}

// The signal names for did-you-mean: every named signal below SIGRTMIN, and the realtime bounds.
const std::vector<std::string>& known_signal_names();

}  // namespace xfer::settings_internal
