// The one escaping of file text for the terminal (issue 48, item 7): every control character
// shown as an escape, printable text (UTF-8 beyond ASCII too) as it is.
#include <string>

#include "support/catch.hpp"
#include "util/terminal_text.hpp"

using xfer::terminal_safe;
using xfer::terminal_safe_lines;

TEST_CASE("terminal_safe: control characters as escapes, on one line", "[util][terminal]") {
    CHECK(terminal_safe("a\x1b[2Jb") == R"(a\x1b[2Jb)");
    CHECK(terminal_safe("one\ntwo\r\n") == R"(one\ntwo\r\n)");
    CHECK(terminal_safe("tab\there") == R"(tab\there)");
    CHECK(terminal_safe(std::string("cut\0here", 8)) == R"(cut\x00here)");
    CHECK(terminal_safe("bell\x07 back\x08 del\x7f") == R"(bell\x07 back\x08 del\x7f)");
    // C1 controls in UTF-8 (CSI is U+009B), and bytes that are not UTF-8.
    CHECK(terminal_safe("csi\xC2\x9B"
                        "2J nel\xC2\x85") == R"(csi\u009b2J nel\u0085)");
    CHECK(terminal_safe("byte\xff and \x9b") == R"(byte\xff and \x9b)");
    CHECK(terminal_safe("cut \xE2\x82") == R"(cut \xe2\x82)");
}

TEST_CASE("terminal_safe: printable text comes back unchanged", "[util][terminal]") {
    for (const std::string text : {"", "plain ascii ~!@#$%^&*()_+{}|:\"<>?`-=[]\\;',./",
                                   "caf\xC3\xA9", "\xC2\xA0nbsp \xC2\xA9", "\xE2\x82\xAC 12",
                                   "\xF0\x9F\x98\x80", "python gil=release threads.count=4"}) {
        INFO(text);
        CHECK(terminal_safe(text) == text);
        CHECK(terminal_safe_lines(text) == text);
    }
}

TEST_CASE("terminal_safe_lines: keeps line breaks, escapes the rest", "[util][terminal]") {
    CHECK(terminal_safe_lines("Traceback:\n  File \"x\"\x1b[2J\n") ==
          "Traceback:\n  File \"x\"\\x1b[2J\n");
    CHECK(terminal_safe_lines("crlf\r\n") == "crlf\\r\n");
    CHECK(terminal_safe_lines(std::string("\0", 1)) == "\\x00");
}
