#pragma once
// An integer of a results file read into the C++ field that holds it, only when it fits: the
// JSON library's get_to() and an int() of SQLite's 64-bit integer keep the low bits, so a
// crafted worker 4294967296 (2^32) was read as worker 0 and planned_runs 10^18 as -1486618624.
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace xfer {

// Whether `n` (as SQLite and the JSON library hold integers) fits T.
template <typename T>
bool integer_fits(int64_t n) {
    if (n < 0) return std::is_signed_v<T> && n >= int64_t(std::numeric_limits<T>::min());
    return uint64_t(n) <= uint64_t(std::numeric_limits<T>::max());
}

// "worker is 4294967296, more than that field holds (at most 2147483647)".
template <typename T>
std::string integer_range_problem(const std::string& what, const std::string& value, bool above) {
    return what + " is " + value +
           (above ? ", more than that field holds (at most " +
                        std::to_string(std::numeric_limits<T>::max()) + ")"
                  : ", less than that field holds (at least " +
                        std::to_string(std::numeric_limits<T>::min()) + ")");
}

// `v` as T; std::invalid_argument naming `what` where it is no integer or does not fit.
template <typename T>
T checked_integer(const nlohmann::json& v, const std::string& what) {
    if (v.is_number_unsigned()) {
        const uint64_t n = v.get<uint64_t>();
        if (n > uint64_t(std::numeric_limits<T>::max()))
            throw std::invalid_argument(integer_range_problem<T>(what, v.dump(), true));
        return T(n);
    }
    if (!v.is_number_integer()) {
        std::string text = v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
        if (text.size() > 60) text = text.substr(0, 60) + "...";
        throw std::invalid_argument(what + " is " + text + ", where xferlab writes an integer");
    }
    const int64_t n = v.get<int64_t>();
    if (!integer_fits<T>(n))
        throw std::invalid_argument(integer_range_problem<T>(what, v.dump(), n >= 0));
    return T(n);
}

// j[key] as T (checked_integer); std::out_of_range-like json error where it is absent.
template <typename T>
void integer_at(const nlohmann::json& j, const char* key, T& out) {
    out = checked_integer<T>(j.at(key), key);
}

// j[key] as T where present, else `fallback`.
template <typename T>
T integer_or(const nlohmann::json& j, const char* key, T fallback) {
    const auto it = j.find(key);
    return it == j.end() ? fallback : checked_integer<T>(*it, key);
}

}  // namespace xfer
