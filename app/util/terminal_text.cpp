#include "util/terminal_text.hpp"

#include <fmt/format.h>

#include "util/utf8.hpp"

namespace xfer {

namespace {

// The escape of one ASCII control character (below 0x20, or DEL).
std::string ascii_escape(unsigned char c) {
    switch (c) {
        case '\n':
            return "\\n";
        case '\r':
            return "\\r";
        case '\t':
            return "\\t";
        default:
            return fmt::format("\\x{:02x}", c);
    }
}

// A well-formed two-byte sequence of U+0080..U+009F: C2 80..C2 9F.
bool is_c1(std::string_view sequence) {
    return sequence.size() == 2 && uint8_t(sequence[0]) == 0xC2 && uint8_t(sequence[1]) <= 0x9F;
}

std::string escaped(std::string_view text, bool keep_line_breaks) {
    std::string out;
    out.reserve(text.size());
    for (size_t i = 0; i < text.size();) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (c < 0x80) {
            const bool control = c < 0x20 || c == 0x7f;
            if (control && !(keep_line_breaks && c == '\n'))
                out += ascii_escape(c);
            else
                out += text[i];
            ++i;
            continue;
        }
        bool valid = false;
        const size_t n = utf8_sequence_at(text, i, valid);
        const std::string_view sequence = text.substr(i, n);
        if (!valid) {
            for (unsigned char b : sequence) out += fmt::format("\\x{:02x}", b);
        } else if (is_c1(sequence)) {
            out += fmt::format("\\u{:04x}", uint8_t(sequence[1]));
        } else {
            out += sequence;
        }
        i += n;
    }
    return out;
}

}  // namespace

std::string terminal_safe(std::string_view text) { return escaped(text, false); }

std::string terminal_safe_lines(std::string_view text) { return escaped(text, true); }

}  // namespace xfer
