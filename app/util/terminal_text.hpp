#pragma once
// Text from files (a scenario's labels and descriptions, a results file's notes, errors and host
// facts) shown on a terminal. A terminal acts on control characters: an ESC sequence in a label
// cleared the screen, a newline forged a report line, a NUL cut the progress line short (printf
// stops there). Every place such text reaches stdout or stderr as text for a person passes it
// through one of these; the files (results.json, the CSVs, the journal) keep it as it was.
#include <string>
#include <string_view>

namespace xfer {

// `text` on one line: every control character shown as an escape. \n, \r and \t by name, the
// other C0 characters and DEL as \xNN (NUL as \x00, ESC as \x1b), the C1 controls (U+0080 to
// U+009F, which some terminals also act on) as \u0080..\u009f, and bytes that are not UTF-8 as
// \xNN. Printable text, UTF-8 beyond ASCII included, comes back unchanged.
std::string terminal_safe(std::string_view text);

// The same for text whose line breaks are its own (a Python traceback, a whole rendered
// report): '\n' is kept, every other control character escaped.
std::string terminal_safe_lines(std::string_view text);

}  // namespace xfer
