#include "util/utf8.hpp"

#include <cstdint>

namespace xfer {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

// What a lead byte starts (Unicode table 3-7: no overlong forms, no surrogates, nothing above
// U+10FFFF): the sequence's length and the allowed range of its second byte; false for a byte
// that starts no sequence of two or more.
bool lead(uint8_t b0, size_t& n, uint8_t& lo, uint8_t& hi) {
    lo = 0x80;
    hi = 0xBF;
    if (b0 >= 0xC2 && b0 <= 0xDF) {
        n = 2;
    } else if (b0 >= 0xE0 && b0 <= 0xEF) {
        n = 3;
        if (b0 == 0xE0) lo = 0xA0;
        if (b0 == 0xED) hi = 0x9F;
    } else if (b0 >= 0xF0 && b0 <= 0xF4) {
        n = 4;
        if (b0 == 0xF0) lo = 0x90;
        if (b0 == 0xF4) hi = 0x8F;
    } else {
        return false;
    }
    return true;
}

// How many bytes at text[i] belong to one sequence: the whole well-formed sequence, or the
// longest start of one that is cut short (its maximal subpart), at least 1. `valid` says which.
size_t sequence_at(std::string_view text, size_t i, bool& valid) {
    const auto byte = [&](size_t k) { return uint8_t(text[k]); };
    valid = byte(i) < 0x80;
    size_t n = 1;
    uint8_t lo = 0, hi = 0;
    if (valid || !lead(byte(i), n, lo, hi)) return 1;
    if (i + 1 >= text.size() || byte(i + 1) < lo || byte(i + 1) > hi) return 1;
    size_t k = 2;
    while (k < n && i + k < text.size() && byte(i + k) >= 0x80 && byte(i + k) <= 0xBF) ++k;
    valid = k == n;
    return k;
}

}  // namespace

size_t utf8_sequence_at(std::string_view text, size_t at, bool& valid) {
    return sequence_at(text, at, valid);
}

bool valid_utf8(std::string_view text) {
    bool valid = true;
    for (size_t i = 0; i < text.size() && valid;) i += sequence_at(text, i, valid);
    return valid;
}

std::string replace_invalid_utf8(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (size_t i = 0; i < text.size();) {
        bool valid = false;
        const size_t n = sequence_at(text, i, valid);
        if (valid)
            out.append(text.substr(i, n));
        else
            out.append(kReplacement);
        i += n;
    }
    return out;
}

}  // namespace xfer
