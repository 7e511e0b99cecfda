#pragma once
// Small text checks shared by the tests.
#include <algorithm>
#include <cstddef>
#include <string>

namespace xfer::test {

inline bool contains(const std::string& s, const std::string& part) {
    return s.find(part) != std::string::npos;
}

// Lines of `s`, counted by their '\n'.
inline size_t line_count(const std::string& s) {
    return size_t(std::count(s.begin(), s.end(), '\n'));
}

}  // namespace xfer::test
