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

// The longest duration a scenario or a config takes (a timeout, a gap, a stagger): a week. A
// longer one is a typo, and every instant computed from one stays far inside int64
// nanoseconds: a timeout's end, and a staggered start's slot for the last of 4096 workers (before
// issue 54, `staggered:9223372036s` wrapped worker 1's slot negative: it never copied, in a run
// called ok).
constexpr int64_t kMaxDurationNs = 7LL * 24 * 3600 * 1'000'000'000;
// "" when `ns` is at most kMaxDurationNs, else why it is refused.
std::string duration_limit_problem(int64_t ns);

// Exact and parseable back: "30 s", "1.5 ms", "250 ns" ("0 s" for zero).
std::string duration_text(int64_t ns);

// `s` without leading and trailing blanks (spaces and tabs).
std::string trim_blanks(const std::string& s);

}  // namespace xfer
