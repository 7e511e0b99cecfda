#pragma once
// Small numeric checks and constants shared by the tests (one definition each: the test files
// are compiled in unity batches, where two files' helpers of one name would collide).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace xfer::test {

inline constexpr uint64_t KiB = 1024, MiB = KiB * 1024, GiB = MiB * 1024, TiB = GiB * 1024;

// a and b equal within `rel` of the larger (and within `rel` absolute near zero).
inline bool near(double a, double b, double rel = 1e-9) {
    return std::abs(a - b) <= rel * std::max(1.0, std::max(std::abs(a), std::abs(b)));
}

inline bool has(const std::vector<int>& v, int x) {
    return std::find(v.begin(), v.end(), x) != v.end();
}

}  // namespace xfer::test
