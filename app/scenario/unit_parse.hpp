#pragma once
// The unit parsers of units.hpp, with the reason a text is not a size or a duration, for
// diagnostics; and the exact duration text written into resolved scenarios.
#include <cstdint>
#include <optional>
#include <string>

namespace xfer::scenario_internal {

std::optional<uint64_t> parse_size(const std::string& text, std::string* why);
std::optional<int64_t> parse_duration_ns(const std::string& text, std::string* why);

// Exact and parseable back: "30 s", "1.5 ms", "250 ns" ("0 s" for zero).
std::string duration_text(int64_t ns);

// `s` without leading and trailing blanks (spaces and tabs).
std::string trim_blanks(const std::string& s);

}  // namespace xfer::scenario_internal
