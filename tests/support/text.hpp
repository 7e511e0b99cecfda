#pragma once
// Small text checks shared by the tests.
#include <string>

namespace xfer::test {

inline bool contains(const std::string& s, const std::string& part) {
    return s.find(part) != std::string::npos;
}

}  // namespace xfer::test
