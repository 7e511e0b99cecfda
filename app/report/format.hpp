#pragma once
// Number formatting shared by the table, the explanations and the trace labels, so that one
// quantity always prints the same way. GB/s is 10^9 bytes/s (as nvprof prints); sizes are binary.
#include <cstdint>
#include <string>

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

}  // namespace xfer::fmtx
