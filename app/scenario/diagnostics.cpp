#include "scenario/diagnostics.hpp"

#include <string_view>

#include "util/terminal_text.hpp"

namespace xfer {

std::string format_diagnostic(const Diagnostic& d) {
    std::string s = d.file;
    // A diagnostic about the file as a whole (no [[run]] at all) has no position to give.
    if (d.line > 0) {
        s += ":" + std::to_string(d.line);
        if (d.column > 0) s += ":" + std::to_string(d.column);
    }
    s += ": error: ";
    // Key and message quote the file (a key as written, a value that was refused): escaped for
    // the terminal (util/terminal_text.hpp), one line per diagnostic.
    if (!d.key.empty()) s += terminal_safe(d.key) + ": ";
    s += terminal_safe(d.message);
    return s;
}

namespace {

// The lines of `text` up to line `last` (1-based), without their line breaks.
std::vector<std::string_view> lines_up_to(std::string_view text, int last) {
    std::vector<std::string_view> lines;
    while (int(lines.size()) < last) {
        const size_t end = text.find('\n');
        std::string_view line = text.substr(0, end);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        lines.push_back(line);
        if (end == std::string_view::npos) break;
        text.remove_prefix(end + 1);
    }
    return lines;
}

}  // namespace

std::string syntax_error_hint(const std::string& description, const std::string& text, int line,
                              int column) {
    const bool literal = description.find("parsing literal string") != std::string::npos;
    if (!literal && description.find("parsing string") == std::string::npos) return "";
    const bool at_eof = description.find("end-of-file") != std::string::npos;
    if (!at_eof && description.find("control characters") == std::string::npos) return "";
    const std::string quote = literal ? "'" : "\"";
    const std::string triple = quote + quote + quote;
    const auto lines = lines_up_to(text, line);
    if (at_eof) {
        for (size_t n = lines.size(); n > 0; --n)
            if (lines[n - 1].find(triple) != std::string_view::npos)
                return "the " + triple + " string opened on line " + std::to_string(n) +
                       " is never closed: add the closing " + triple;
    }
    // A control character inside the line is a real one (write it as an escape); at the end of
    // the line it is the line break the string ran into.
    if (lines.empty() || int(lines.size()) < line || size_t(column) <= lines.back().size())
        return "";
    return "line " + std::to_string(line) + " ends inside a string: add the closing " + quote +
           " (a " + quote + "..." + quote + " string ends on the line it starts on; " + triple +
           "..." + triple + " spans lines)";
}

namespace {

std::string join(const std::vector<Diagnostic>& diagnostics) {
    std::string s;
    for (const auto& d : diagnostics) {
        if (!s.empty()) s += "\n";
        s += format_diagnostic(d);
    }
    return s;
}

}  // namespace

ScenarioError::ScenarioError(std::vector<Diagnostic> diagnostics)
    : std::runtime_error(join(diagnostics)), diagnostics_(std::move(diagnostics)) {}

void print_diagnostics(const ScenarioError& e, std::ostream& out) {
    for (const auto& d : e.diagnostics()) out << format_diagnostic(d) << "\n";
}

}  // namespace xfer
