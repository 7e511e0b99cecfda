#pragma once
// "2GiB", "64 MiB", "500us", "1.5s": sizes in B/KB/MB/GB/TB (powers of 1000) and
// KiB/MiB/GiB/TiB (powers of 1024); durations in ns/us/ms/s. With `why`, the reason a text is
// not a size or a duration, for diagnostics. The texts of sizes and durations printed in
// reports are format.hpp's.
#include <cstdint>
#include <optional>
#include <string>

#include "util/format.hpp"

namespace xfer {

std::optional<uint64_t> parse_size(const std::string& text, std::string* why = nullptr);
std::optional<int64_t> parse_duration_ns(const std::string& text, std::string* why = nullptr);

// Exact and parseable back: "30 s", "1.5 ms", "250 ns" ("0 s" for zero).
std::string duration_text(int64_t ns);

// `s` without leading and trailing blanks (spaces and tabs).
std::string trim_blanks(const std::string& s);

}  // namespace xfer
