// Sizes and durations as scenario files write them, and the texts the report prints.
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <string>
#include <vector>

#include "support/catch.hpp"
#include "support/text.hpp"
#include "support/values.hpp"
#include "util/suggest.hpp"
#include "util/units.hpp"

using xfer::test::contains;

using namespace xfer;
using xfer::test::GiB;
using xfer::test::KiB;
using xfer::test::MiB;
using xfer::test::TiB;

namespace {

std::string size_error(const std::string& text) {
    std::string why;
    CHECK_FALSE(parse_size(text, &why).has_value());
    return why;
}

std::string duration_error(const std::string& text) {
    std::string why;
    CHECK_FALSE(parse_duration_ns(text, &why).has_value());
    return why;
}

}  // namespace

TEST_CASE("binary size units are powers of 1024", "[units]") {
    CHECK(parse_size("2GiB") == 2 * GiB);
    CHECK(parse_size("64 MiB") == 64 * MiB);
    CHECK(parse_size("4KiB") == 4 * KiB);
    CHECK(parse_size("3TiB") == 3 * TiB);
    CHECK(parse_size("1.5GiB") == 3 * GiB / 2);
    CHECK(parse_size("0.5KiB") == 512u);
}

TEST_CASE("decimal size units are powers of 1000", "[units]") {
    CHECK(parse_size("1KB") == 1000u);
    CHECK(parse_size("7.45GB") == 7'450'000'000u);
    CHECK(parse_size("2 MB") == 2'000'000u);
    CHECK(parse_size("1TB") == 1'000'000'000'000u);
    CHECK(parse_size("100B") == 100u);
}

TEST_CASE("a size without a unit is bytes, and blanks around are ignored", "[units]") {
    CHECK(parse_size("4096") == 4096u);
    CHECK(parse_size("  8 KiB ") == 8 * KiB);
    CHECK(parse_size("0") == 0u);
}

TEST_CASE("the largest sizes parse and one more overflows", "[units]") {
    CHECK(parse_size("18446744073709551615") == UINT64_MAX);
    CHECK(contains(size_error("18446744073709551616"), "too large"));
    CHECK(parse_size("16777215TiB") == 16777215 * TiB);
    CHECK(contains(size_error("16777216TiB"), "too large"));
    CHECK(contains(size_error("99999999999999999999999999999TiB"), "too large"));
}

TEST_CASE("malformed sizes are rejected with the reason", "[units]") {
    CHECK(contains(size_error(""), "empty"));
    CHECK(contains(size_error("GiB"), "does not start with a number"));
    CHECK(contains(size_error("-1KiB"), "does not start with a number"));
    CHECK(contains(size_error("+1KiB"), "does not start with a number"));
    CHECK(contains(size_error(".5KiB"), "does not start with a number"));
    CHECK(contains(size_error("1.GiB"), "digits after"));
    CHECK(contains(size_error("1.3B"), "not a whole number of bytes"));
    CHECK(contains(size_error("0.1KiB"), "not a whole number of bytes"));
    CHECK(contains(size_error("1e3"), "unknown size unit 'e3'"));
    CHECK(contains(size_error("64M"), "unknown size unit 'M' (did you mean 'MB' or 'MiB'?)"));
    CHECK(contains(size_error("4k"), "(did you mean 'KB' or 'KiB'?)"));
    // A near miss in case gets a suggestion; the units are case-sensitive (Kb is not KB).
    const std::string why = size_error("64mib");
    CHECK(contains(why, "did you mean 'MiB'?"));
    CHECK(contains(why, "KiB, MiB, GiB or TiB"));
    CHECK(contains(size_error("1 K iB"), "unknown size unit 'K iB'"));
}

TEST_CASE("durations in ns, us, ms and s", "[units]") {
    CHECK(parse_duration_ns("250ns") == 250);
    CHECK(parse_duration_ns("500us") == 500'000);
    CHECK(parse_duration_ns("2 ms") == 2'000'000);
    CHECK(parse_duration_ns("1.5s") == 1'500'000'000);
    CHECK(parse_duration_ns("0.001us") == 1);
    CHECK(parse_duration_ns("0") == 0);  // zero alone needs no unit
    CHECK(parse_duration_ns("0ms") == 0);
}

TEST_CASE("malformed durations are rejected with the reason", "[units]") {
    CHECK(contains(duration_error("5"), "needs a unit"));
    CHECK(contains(duration_error("1m"), "unknown duration unit 'm'"));
    CHECK(contains(duration_error("1sec"), "unknown duration unit 'sec'"));
    CHECK(contains(duration_error("-1ms"), "does not start with a number"));
    CHECK(contains(duration_error("0.5ns"), "not a whole number of nanoseconds"));
    CHECK(contains(duration_error("10000000000s"), "too large"));
    CHECK(contains(duration_error("2MS"), "did you mean 'ms'?"));
}

TEST_CASE("format_size picks the unit the value is exact in", "[units]") {
    CHECK(format_size(0) == "0 B");
    CHECK(format_size(100) == "100 B");
    CHECK(format_size(4 * KiB) == "4 KiB");
    CHECK(format_size(1536) == "1.5 KiB");
    CHECK(format_size(64 * MiB) == "64 MiB");
    CHECK(format_size(3 * GiB / 2) == "1.5 GiB");
    CHECK(format_size(2 * TiB) == "2 TiB");
    CHECK(format_size(1'000'000) == "1 MB");
    CHECK(format_size(7'450'000'000) == "7.45 GB");
    // Neither exact: binary, two decimals.
    CHECK(format_size(1'000'001) == "976.56 KiB");
    // Rounding that reaches the next unit moves up to it.
    CHECK(format_size(MiB - 1) == "1 MiB");
}

TEST_CASE("exact sizes read back from their text", "[units]") {
    for (uint64_t b : std::vector<uint64_t>{1, 100 * KiB, 3 * GiB / 2, 7450000000, 5 * TiB, 1536}) {
        CHECK(parse_size(format_size(b)) == b);
    }
}

TEST_CASE("format_duration_ns prints two decimals in a fitting unit", "[units]") {
    CHECK(format_duration_ns(850) == "850 ns");
    CHECK(format_duration_ns(1500) == "1.50 us");
    CHECK(format_duration_ns(1'234'567) == "1.23 ms");
    CHECK(format_duration_ns(2.5e9) == "2.50 s");
}

TEST_CASE("duration_text is exact and reads back", "[units]") {
    CHECK(duration_text(0) == "0 s");
    CHECK(duration_text(30'000'000'000) == "30 s");
    CHECK(duration_text(1'500'000) == "1.5 ms");
    CHECK(duration_text(1'234) == "1.234 us");
    CHECK(duration_text(1'234'567) == "1234.567 us");
    CHECK(duration_text(7) == "7 ns");
    for (int64_t ns : {int64_t(1), int64_t(999), int64_t(1'000'001), int64_t(86'400'000'000'000)}) {
        CHECK(parse_duration_ns(duration_text(ns)) == ns);
    }
}

TEST_CASE("format_bandwidth uses decimal GB/s as nvprof, MB/s below 1 GB/s", "[units]") {
    CHECK(format_bandwidth(12.34e9) == "12.34 GB/s");
    CHECK(format_bandwidth(5.07e9) == "5.07 GB/s");
    CHECK(format_bandwidth(1e9) == "1.00 GB/s");
    CHECK(format_bandwidth(512.5e6) == "512.50 MB/s");
    CHECK(format_bandwidth(0) == "0.00 MB/s");
}

TEST_CASE("did-you-mean finds near misses only", "[units]") {
    CHECK(edit_distance("count", "count") == 0);
    CHECK(edit_distance("cuont", "count") == 1);  // a swap is one edit
    CHECK(edit_distance("Count", "count") == 0);
    CHECK(edit_distance("repetitons", "repetitions") == 1);
    const std::vector<std::string> keys = {"count", "start", "stack_size", "signal_mask"};
    CHECK(closest("stacksize", keys) == std::optional<std::string>("stack_size"));
    CHECK(closest("cont", keys) == std::optional<std::string>("count"));
    CHECK_FALSE(closest("bytes", keys).has_value());
    CHECK(did_you_mean("strat", keys) == " (did you mean 'start'?)");
    CHECK(did_you_mean("zzz", keys).empty());
    // A truncated word is a prefix of what was meant.
    CHECK(closest("signal", keys) == std::optional<std::string>("signal_mask"));
    CHECK_FALSE(closest("si", keys).has_value());
    // Replacing the whole word is not a near miss.
    CHECK_FALSE(closest("M", {"B", "KB"}).has_value());
}

namespace {

// The whole optimal-string-alignment table, as the definition states it: what the banded,
// early-stopping edit_distance_within must agree with.
int full_table_distance(const std::string& a, const std::string& b) {
    auto low = [](char c) { return char(std::tolower(static_cast<unsigned char>(c))); };
    const size_t n = a.size(), m = b.size();
    std::vector<std::vector<int>> d(n + 1, std::vector<int>(m + 1));
    for (size_t i = 0; i <= n; ++i) d[i][0] = int(i);
    for (size_t j = 0; j <= m; ++j) d[0][j] = int(j);
    for (size_t i = 1; i <= n; ++i)
        for (size_t j = 1; j <= m; ++j) {
            const int cost = low(a[i - 1]) == low(b[j - 1]) ? 0 : 1;
            d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
            if (i > 1 && j > 1 && low(a[i - 1]) == low(b[j - 2]) && low(a[i - 2]) == low(b[j - 1]))
                d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
        }
    return d[n][m];
}

}  // namespace

TEST_CASE("edit_distance_within equals the full table's distance or says 'more than bound'",
          "[units]") {
    // Every pair of words up to 4 letters over {a, b, A}: swaps, case, repeats and lengths.
    std::vector<std::string> words = {""};
    for (size_t begin = 0, len = 0; len < 4; ++len) {
        const size_t end = words.size();
        for (size_t w = begin; w < end; ++w)
            for (char c : {'a', 'b', 'A'}) words.push_back(words[w] + c);
        begin = end;
    }
    int mismatches = 0;
    for (const auto& a : words)
        for (const auto& b : words) {
            const int full = full_table_distance(a, b);
            if (edit_distance(a, b) != full) ++mismatches;
            for (int bound = 0; bound <= 3; ++bound)
                if (edit_distance_within(a, b, bound) != std::min(full, bound + 1)) ++mismatches;
        }
    CHECK(words.size() == 121);
    CHECK(mismatches == 0);
}
