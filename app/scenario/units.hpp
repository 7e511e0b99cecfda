#pragma once
// "2GiB", "64 MiB", "500us", "1.5s": sizes in B/KB/MB/GB/TB (powers of 1000) and
// KiB/MiB/GiB/TiB (powers of 1024); durations in ns/us/ms/s.
#include <cstdint>
#include <optional>
#include <string>

namespace xfer {

std::optional<uint64_t> parse_size(const std::string& text);
std::optional<int64_t> parse_duration_ns(const std::string& text);

std::string format_size(uint64_t bytes);            // "64 MiB", "1.5 GiB", "4 KiB", "100 B"
std::string format_duration_ns(double ns);          // "1.23 ms"
std::string format_bandwidth(double bytes_per_s);   // "12.34 GB/s" (decimal, as nvprof)

}  // namespace xfer
