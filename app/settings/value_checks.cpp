#include "settings/value_checks.hpp"

#include <climits>
#include <csignal>

#include "system/signal_names.hpp"
#include "util/units.hpp"

namespace xfer::settings_internal {

using nlohmann::json;

std::optional<int> plain_int(const std::string& s) {
    if (s.empty() || s.size() > 9) return std::nullopt;
    int n = 0;
    for (char c : s) {
        if (c < '0' || c > '9') return std::nullopt;
        n = n * 10 + (c - '0');
    }
    return n;
}

SettingResult want_int(const json& v, int64_t lo, int64_t hi, int& out, const std::string& why) {
    // A key without a real upper bound is "an integer >= 1"; a value above the int it is held
    // in hears the bound all the same ("repetitions = 4000000000" was told ">= 1").
    const bool above = v.is_number_integer() &&
                       ((v.is_number_unsigned() && v.get<uint64_t>() > uint64_t(INT64_MAX)) ||
                        v.get<int64_t>() > hi);
    std::string range = hi == INT_MAX && !above
                            ? "an integer >= " + std::to_string(lo)
                            : "an integer from " + std::to_string(lo) + " to " + std::to_string(hi);
    if (!why.empty()) range += " (" + why + ")";
    if (!v.is_number_integer() || above) return expected(range, v);
    const int64_t n = v.get<int64_t>();
    if (n < lo) return expected(range, v);
    out = int(n);
    return std::nullopt;
}

SettingResult want_bool(const json& v, bool& out) {
    if (!v.is_boolean()) return expected("true or false", v);
    out = v.get<bool>();
    return std::nullopt;
}

SettingResult want_size(const json& v, const std::string& what, uint64_t& out) {
    uint64_t size = 0;
    if (v.is_number_integer()) {
        if (!v.is_number_unsigned() && v.get<int64_t>() < 0)
            return expected(what + ", not a negative number", v);
        size = v.get<uint64_t>();
    } else if (v.is_string()) {
        std::string why;
        auto parsed = parse_size(v.get<std::string>(), &why);
        if (!parsed) return SettingError{"expected " + what + "; got " + describe(v) + ": " + why};
        size = *parsed;
    } else {
        return expected(what, v);
    }
    if (size > kMaxSize)
        return SettingError{"expected " + what +
                            " of at most 1024TiB (more than any machine's "
                            "memory); got " +
                            describe(v)};
    out = size;
    return std::nullopt;
}

SettingResult want_duration_arg(const json& v, const std::string& form, const std::string& arg,
                                int64_t& out) {
    std::string why;
    auto ns = parse_duration_ns(arg, &why);
    if (ns && !(why = duration_limit_problem(*ns)).empty()) ns.reset();
    if (!ns) {
        return SettingError{form + " needs a duration such as \"100us\"; got " + describe(v) +
                            ": " + why};
    }
    out = *ns;
    return std::nullopt;
}

SettingResult want_int_list(const json& v, const std::string& one, const std::string& many, int hi,
                            std::vector<int>& out) {
    if (v.empty()) return SettingError{"an empty list selects nothing: give at least one " + one};
    std::vector<int> list;
    for (size_t i = 0; i < v.size(); ++i) {
        int n = 0;
        if (want_int(v[i], 0, hi, n)) {
            return SettingError{"expected " + many + " from 0 to " + std::to_string(hi) +
                                    "; element " + std::to_string(i + 1) + " is " + describe(v[i]),
                                int(i)};
        }
        list.push_back(n);
    }
    out = std::move(list);
    return std::nullopt;
}

const std::vector<std::string>& known_signal_names() {
    static const std::vector<std::string> names = [] {
        std::vector<std::string> v;
        for (int n = 1; n < SIGRTMIN; ++n) {
            std::string name = signal_name(n);
            if (name != "SIG" + std::to_string(n)) v.push_back(name);
        }
        v.push_back("SIGRTMIN");
        v.push_back("SIGRTMAX");
        return v;
    }();
    return names;
}

}  // namespace xfer::settings_internal
