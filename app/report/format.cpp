#include "report/format.hpp"

#include <fmt/format.h>

#include <cmath>

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

}  // namespace xfer::fmtx
