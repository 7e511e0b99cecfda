#pragma once
// How deep a TOML text nests its tables, found before TOML++ sees it. TOML++ builds, walks and
// frees its tables by recursion, one call per level: a key of 30,000 dotted parts
// (a.a.a...a = 1, 100 KB of text), or a table header of 20,000, overflowed the stack (SIGSEGV
// in check, run, list, --config and a --set value). A text nested deeper than
// kMaxTomlDepth is refused here, at the key that goes too deep, before anything is parsed.
#include <optional>
#include <string>
#include <string_view>

namespace xfer::scenario_internal {

// The most levels one key may sit below the document: its table header's parts, its own
// dotted parts, and the inline tables and arrays around it, counted together. A scenario's
// deepest key is params.<key>.<key>... as deep as a payload's parameters go; TOML++ allows
// arrays and inline tables 256 deep, and so does this for every kind of nesting at once.
inline constexpr int kMaxTomlDepth = 256;

struct TomlDepthProblem {
    int line = 0;           // 1-based, where the key (or header) that goes too deep starts
    int column = 0;         // 1-based, in characters (as TOML++ counts them)
    int depth = 0;          // the levels of that key (or header, or bracket): above kMaxTomlDepth
    std::string_view what;  // "key", "table header", "array", "inline table"
};

// The first place where `text` nests deeper than kMaxTomlDepth; nullopt when none does. A
// lexical scan (strings, comments, brackets and dotted keys): it never fails on text that is
// not TOML, which the parser then reports.
std::optional<TomlDepthProblem> toml_depth_problem(std::string_view text);

// The problem as a sentence: "this key is nested 50003 levels deep (table header, dotted key
// parts, inline tables and arrays counted together); xferlab reads at most 256 levels".
std::string toml_depth_message(const TomlDepthProblem& problem);

}  // namespace xfer::scenario_internal
