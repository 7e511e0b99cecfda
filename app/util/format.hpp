#pragma once
// Every number xferlab prints, formatted in one module so that one quantity always prints the
// same way wherever it appears. GB/s is 10^9 bytes/s (as nvprof prints).
//
// Two registers, each used consistently:
//  - messages, notes and the plan (format_*): sizes as the user most likely wrote them, fixed
//    two decimals for durations and rates;
//  - the report's tables and explanations (fmtx::): compact, three significant figures.
#include <cstdint>
#include <string>

namespace xfer {

// "64 MiB", "1.5 GiB", "4 KiB", "100 B"; decimal units when only they are exact ("1 MB").
std::string format_size(uint64_t bytes);
std::string format_duration_ns(double ns);         // "1.23 ms"
std::string format_bandwidth(double bytes_per_s);  // "12.34 GB/s", "512.00 MB/s" below 1 GB/s
// Up to `decimals` decimals, trailing zeros dropped: 1.50 -> "1.5", 2.00 -> "2".
std::string trimmed(double value, int decimals);

}  // namespace xfer

namespace xfer::fmtx {

// Bytes/s as GB/s without the unit: 2 decimals below 100, 1 above, 3 below 1.
std::string gbps(double Bps);
// The same with " GB/s".
std::string gbps_unit(double Bps);
// A duration in ns with a readable unit: "850 ns", "12.3 us", "4.56 ms", "1.23 s".
std::string duration(double ns);
// A size: "64 MiB" when exact, else "1.50 GiB"; below 1 KiB "512 B".
std::string size(uint64_t bytes);
// A ratio: "1.02x".
std::string ratio(double r);
// A percentage of a fraction: 0.41 -> "41%" (one decimal below 10 %).
std::string percent(double fraction);
// A confidence interval from its ends as printed: "[0.75x, 0.85x]". Brackets and a comma, not
// a dash, so that no end can be read as a minus sign.
std::string interval(const std::string& low, const std::string& high);

}  // namespace xfer::fmtx
