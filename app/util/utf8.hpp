#pragma once
// Text from outside (a --set flag, a scenario's strings) that must be stored and printed as
// UTF-8: results.json, the journal and the report are UTF-8 throughout.
#include <string>
#include <string_view>

namespace xfer {

bool valid_utf8(std::string_view text);

// How many bytes at text[at] make one sequence (at < text.size()): a well-formed one whole
// (`valid`), or the longest start of one that is cut short, at least 1 byte (not `valid`).
size_t utf8_sequence_at(std::string_view text, size_t at, bool& valid);

// `text` with every ill-formed sequence replaced by U+FFFD (one per maximal invalid
// subsequence, as Unicode recommends); valid text comes back unchanged.
std::string replace_invalid_utf8(std::string_view text);

}  // namespace xfer
