#include "util/format.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <vector>

namespace xfer {
namespace {

using u128 = unsigned __int128;

struct Unit {
    const char* name;
    uint64_t factor;
};

}  // namespace

std::string trimmed(double value, int decimals) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, value);
    std::string s = buf;
    if (s.find('.') != std::string::npos) {
        while (s.back() == '0') s.pop_back();
        if (s.back() == '.') s.pop_back();
    }
    return s;
}

namespace {

// The largest unit of `units` (ascending factors) the value reaches, rounded to 2 decimals;
// moves up a unit when rounding reaches the next one (1023.999 KiB -> "1 MiB").
std::string scaled(uint64_t bytes, const std::vector<Unit>& units) {
    size_t k = 0;
    while (k + 1 < units.size() && bytes >= units[k + 1].factor) ++k;
    double v = double(bytes) / double(units[k].factor);
    const double step = k + 1 < units.size() ? double(units[k + 1].factor / units[k].factor) : 0;
    if (step > 0 && std::round(v * 100) / 100 >= step) {
        ++k;
        v = double(bytes) / double(units[k].factor);
    }
    return trimmed(v, 2) + " " + units[k].name;
}

bool exact_in(uint64_t bytes, const std::vector<Unit>& units) {
    size_t k = 0;
    while (k + 1 < units.size() && bytes >= units[k + 1].factor) ++k;
    return (u128(bytes) * 100) % units[k].factor == 0;
}

}  // namespace

std::string format_size(uint64_t bytes) {
    static const std::vector<Unit> binary = {{"B", 1},
                                             {"KiB", 1ull << 10},
                                             {"MiB", 1ull << 20},
                                             {"GiB", 1ull << 30},
                                             {"TiB", 1ull << 40},
                                             {"PiB", 1ull << 50}};
    static const std::vector<Unit> decimal = {{"B", 1},
                                              {"KB", 1000ull},
                                              {"MB", 1000ull * 1000},
                                              {"GB", 1000ull * 1000 * 1000},
                                              {"TB", 1000ull * 1000 * 1000 * 1000},
                                              {"PB", 1000ull * 1000 * 1000 * 1000 * 1000}};
    // Binary units unless the value is exact only in decimal ones (1000000 -> "1 MB", not
    // "976.56 KiB"): the text then says the size the user most likely wrote.
    if (!exact_in(bytes, binary) && exact_in(bytes, decimal)) return scaled(bytes, decimal);
    return scaled(bytes, binary);
}

std::string format_duration_ns(double ns) {
    if (std::isnan(ns)) return "nan";
    const double a = std::fabs(ns);
    char buf[64];
    if (a < 1e3) {
        std::snprintf(buf, sizeof buf, "%.0f ns", ns);
    } else if (a < 1e6) {
        std::snprintf(buf, sizeof buf, "%.2f us", ns / 1e3);
    } else if (a < 1e9) {
        std::snprintf(buf, sizeof buf, "%.2f ms", ns / 1e6);
    } else {
        std::snprintf(buf, sizeof buf, "%.2f s", ns / 1e9);
    }
    return buf;
}

std::string format_bandwidth(double bytes_per_s) {
    if (std::isnan(bytes_per_s)) return "nan";
    char buf[64];
    // Decimal units, as nvprof prints them; MB/s below 1 GB/s keeps small rates readable.
    if (std::fabs(bytes_per_s) >= 1e9) {
        std::snprintf(buf, sizeof buf, "%.2f GB/s", bytes_per_s / 1e9);
    } else {
        std::snprintf(buf, sizeof buf, "%.2f MB/s", bytes_per_s / 1e6);
    }
    return buf;
}

}  // namespace xfer

namespace xfer::fmtx {

std::string gbps(double Bps) {
    const double g = Bps / 1e9;
    if (g >= 100) return fmt::format("{:.1f}", g);
    if (g >= 1) return fmt::format("{:.2f}", g);
    return fmt::format("{:.3f}", g);
}

std::string gbps_unit(double Bps) { return gbps(Bps) + " GB/s"; }

std::string duration(double ns) {
    const double a = std::abs(ns);
    if (a < 1e3) return fmt::format("{:.0f} ns", ns);
    if (a < 1e6) return fmt::format("{:.3g} us", ns / 1e3);
    if (a < 1e9) return fmt::format("{:.3g} ms", ns / 1e6);
    return fmt::format("{:.3g} s", ns / 1e9);
}

std::string size(uint64_t bytes) {
    static const char* const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    uint64_t v = bytes;
    while (u < 4 && v >= 1024 && v % 1024 == 0) {
        v /= 1024;
        ++u;
    }
    if (v < 1024 || u == 4) return fmt::format("{} {}", v, units[u]);
    double d = double(bytes);
    u = 0;
    while (u < 4 && d >= 1024) {
        d /= 1024;
        ++u;
    }
    return fmt::format("{:.2f} {}", d, units[u]);
}

std::string ratio(double r) { return fmt::format("{:.2f}x", r); }

std::string percent(double fraction) {
    const double p = fraction * 100;
    if (std::abs(p) < 10) return fmt::format("{:.1f}%", p);
    return fmt::format("{:.0f}%", p);
}

std::string interval(const std::string& low, const std::string& high) {
    return "[" + low + ", " + high + "]";
}

}  // namespace xfer::fmtx
