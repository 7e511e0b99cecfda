#include "util/units.hpp"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <utility>
#include <vector>

#include "util/suggest.hpp"

namespace xfer {
namespace {

using u128 = unsigned __int128;

struct UnitFactor {
    const char* name;
    uint64_t factor;
};

const std::vector<UnitFactor>& size_units() {
    static const std::vector<UnitFactor> units = {
        {"B", 1},
        {"KB", 1000ull},
        {"MB", 1000ull * 1000},
        {"GB", 1000ull * 1000 * 1000},
        {"TB", 1000ull * 1000 * 1000 * 1000},
        {"KiB", 1ull << 10},
        {"MiB", 1ull << 20},
        {"GiB", 1ull << 30},
        {"TiB", 1ull << 40},
    };
    return units;
}

const std::vector<UnitFactor>& duration_units() {
    static const std::vector<UnitFactor> units = {
        {"ns", 1}, {"us", 1000ull}, {"ms", 1000ull * 1000}, {"s", 1000ull * 1000 * 1000}};
    return units;
}

// "1.5 GiB" -> digits "15", 1 decimal, unit "GiB". Plain decimal notation only: no sign, no
// exponent, digits on both sides of a point, so that the value is exact.
struct Number {
    u128 mantissa = 0;
    int decimals = 0;
    std::string unit;
};

std::optional<Number> split_number(const std::string& raw, const char* what, std::string* why) {
    const std::string text = trim_blanks(raw);
    auto fail = [&](const std::string& reason) -> std::optional<Number> {
        if (why) *why = reason;
        return std::nullopt;
    };
    if (text.empty()) return fail(std::string("empty ") + what);
    Number n;
    size_t i = 0;
    int digits = 0;
    bool point = false;
    int after_point = 0;
    for (; i < text.size(); ++i) {
        const char c = text[i];
        if (c >= '0' && c <= '9') {
            if (++digits > 30) return fail("too many digits");
            n.mantissa = n.mantissa * 10 + u128(c - '0');
            if (point) ++after_point;
        } else if (c == '.' && !point && digits > 0) {
            point = true;
        } else {
            break;
        }
    }
    if (digits == 0) {
        return fail(std::string("'") + text + "' does not start with a number (" + what +
                    "s are written like " + (what[0] == 's' ? "\"64MiB\"" : "\"500us\"") + ")");
    }
    if (point && after_point == 0) return fail("a decimal point needs digits after it");
    n.decimals = after_point;
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
    n.unit = text.substr(i);
    return n;
}

// mantissa / 10^decimals * factor, exactly, or the reason it is not a whole number / too big.
std::optional<u128> scale(const Number& n, uint64_t factor, u128 max, const char* whole,
                          std::string* why) {
    u128 pow10 = 1;
    for (int k = 0; k < n.decimals; ++k) pow10 *= 10;
    // 30 digits times 2^40 can wrap 128 bits: the division check catches the wrap.
    const u128 product = n.mantissa * factor;
    if (n.mantissa != 0 && product / n.mantissa != factor) {
        if (why) *why = "too large";
        return std::nullopt;
    }
    if (product % pow10 != 0) {
        if (why) *why = std::string("not a whole number of ") + whole;
        return std::nullopt;
    }
    const u128 value = product / pow10;
    if (value > max) {
        if (why) *why = "too large";
        return std::nullopt;
    }
    return value;
}

std::string unit_list(const std::vector<UnitFactor>& units) {
    std::string s;
    for (size_t k = 0; k < units.size(); ++k) {
        if (k) s += k + 1 == units.size() ? " or " : ", ";
        s += units[k].name;
    }
    return s;
}

std::vector<std::string> unit_names(const std::vector<UnitFactor>& units) {
    std::vector<std::string> names;
    for (const auto& u : units) names.push_back(u.name);
    return names;
}

}  // namespace

std::optional<uint64_t> parse_size(const std::string& text, std::string* why) {
    auto n = split_number(text, "size", why);
    if (!n) return std::nullopt;
    uint64_t factor = 0;
    if (n->unit.empty()) {
        factor = 1;  // a bare number is bytes, as an integer is
    } else {
        for (const auto& u : size_units()) {
            if (n->unit == u.name) factor = u.factor;
        }
    }
    if (factor == 0) {
        if (why) {
            std::string hint = did_you_mean(n->unit, unit_names(size_units()));
            // "64M" / "4k": say both readings rather than guess between 10^n and 2^n.
            const std::string prefixes = "KMGT";
            if (n->unit.size() == 1 &&
                prefixes.find(char(std::toupper(static_cast<unsigned char>(n->unit[0])))) !=
                    std::string::npos) {
                const char p = char(std::toupper(static_cast<unsigned char>(n->unit[0])));
                hint = std::string(" (did you mean '") + p + "B' or '" + p + "iB'?)";
            }
            *why = "unknown size unit '" + n->unit + "'" + hint + "; units are " +
                   unit_list(size_units());
        }
        return std::nullopt;
    }
    auto v = scale(*n, factor, u128(UINT64_MAX), "bytes", why);
    if (!v) return std::nullopt;
    return uint64_t(*v);
}

std::optional<int64_t> parse_duration_ns(const std::string& text, std::string* why) {
    auto n = split_number(text, "duration", why);
    if (!n) return std::nullopt;
    uint64_t factor = 0;
    if (n->unit.empty()) {
        // Only zero needs no unit: "5" could mean seconds or milliseconds.
        if (n->mantissa == 0) return 0;
        if (why) *why = "a duration needs a unit: " + unit_list(duration_units());
        return std::nullopt;
    }
    for (const auto& u : duration_units()) {
        if (n->unit == u.name) factor = u.factor;
    }
    if (factor == 0) {
        if (why) {
            *why = "unknown duration unit '" + n->unit + "'" +
                   did_you_mean(n->unit, unit_names(duration_units())) + "; units are " +
                   unit_list(duration_units());
        }
        return std::nullopt;
    }
    auto v = scale(*n, factor, u128(INT64_MAX), "nanoseconds", why);
    if (!v) return std::nullopt;
    return int64_t(*v);
}

std::string duration_limit_problem(int64_t ns) {
    if (ns <= kMaxDurationNs) return "";
    return "more than 7 days (604800 s), the longest duration xferlab takes: a longer one is a "
           "typo, and the instants computed from it (a timeout's end, a staggered start's slots) "
           "would overflow the clock";
}

std::string trim_blanks(const std::string& s) {
    const size_t b = s.find_first_not_of(" \t");
    if (b == std::string::npos) return "";
    return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

std::string duration_text(int64_t ns) {
    if (ns == 0) return "0 s";
    const auto& units = duration_units();
    for (auto it = units.rbegin(); it != units.rend(); ++it) {
        const int64_t f = int64_t(it->factor);
        // Exact with at most three decimals: 1500000 ns -> "1.5 ms".
        if (ns >= f && (f < 1000 || ns % (f / 1000) == 0)) {
            return trimmed(double(ns) / double(f), 3) + " " + it->name;
        }
    }
    return std::to_string(ns) + " ns";
}

}  // namespace xfer
