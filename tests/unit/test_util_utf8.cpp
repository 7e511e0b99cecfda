// UTF-8 checking and repair of text from outside (--set flags): Unicode's maximal-subpart rule,
// one U+FFFD per ill-formed sequence.
#include <string>

#include "support/catch.hpp"
#include "util/utf8.hpp"

using xfer::replace_invalid_utf8;
using xfer::valid_utf8;

TEST_CASE("valid UTF-8 is recognised and kept byte for byte", "[util][utf8]") {
    for (const std::string text : {"", "plain ascii", "caf\xC3\xA9", "\xE2\x82\xAC 12",
                                   "\xF0\x9F\x98\x80", "\xEF\xBF\xBD", "\xF4\x8F\xBF\xBF"}) {
        INFO(text);
        CHECK(valid_utf8(text));
        CHECK(replace_invalid_utf8(text) == text);
    }
}

TEST_CASE("each ill-formed sequence becomes one U+FFFD, as Unicode recommends", "[util][utf8]") {
    const std::string r = "\xEF\xBF\xBD";
    struct Case {
        std::string in, out;
    };
    for (const Case& c : std::vector<Case>{
             {"caf\xE9", "caf" + r},               // Latin-1
             {"\xE0\xA0x", r + "x"},               // cut short: one for both bytes
             {"\xE0\x80", r + r},                  // overlong: the lead alone, then 0x80
             {"\xC0\xAF", r + r},                  // overlong two-byte '/'
             {"\xED\xA0\x80", r + r + r},          // a surrogate
             {"\xF4\x90\x80\x80", r + r + r + r},  // above U+10FFFF
             {"\xF0\x9F\x98", r},                  // a 4-byte emoji cut short at the end
             {"a\x80"
              "b",
              "a" + r + "b"},      // a lone continuation byte
             {"\xFF\xFE", r + r},  // bytes that never start a sequence
         }) {
        INFO(c.in);
        CHECK_FALSE(valid_utf8(c.in));
        CHECK(replace_invalid_utf8(c.in) == c.out);
        CHECK(valid_utf8(replace_invalid_utf8(c.in)));
    }
}
