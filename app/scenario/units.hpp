#pragma once
// "2GiB", "64 MiB", "500us", "1.5s": sizes in B/KB/MB/GB/TB (powers of 1000) and
// KiB/MiB/GiB/TiB (powers of 1024); durations in ns/us/ms/s.
#include <cstdint>
#include <optional>
#include <string>

#include "util/format.hpp"

namespace xfer {

std::optional<uint64_t> parse_size(const std::string& text);
std::optional<int64_t> parse_duration_ns(const std::string& text);

// The texts of sizes and durations are util/format.hpp's.

}  // namespace xfer
