#pragma once
// Small text checks shared by the tests.
#include <algorithm>
#include <cstddef>
#include <sstream>
#include <string>
#include <vector>

namespace xfer::test {

inline bool contains(const std::string& s, const std::string& part) {
    return s.find(part) != std::string::npos;
}

// Lines of `s`, counted by their '\n'.
inline size_t line_count(const std::string& s) {
    return size_t(std::count(s.begin(), s.end(), '\n'));
}

// The lines of `text`, without their '\n'.
inline std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

// Blanks and line breaks as one blank: wrapped text compares with the text it came from.
inline std::string squeeze(const std::string& text) {
    std::string out;
    for (char c : text) {
        const bool blank = c == ' ' || c == '\n';
        if (blank && (out.empty() || out.back() == ' ')) continue;
        out += blank ? ' ' : c;
    }
    return out;
}

}  // namespace xfer::test
