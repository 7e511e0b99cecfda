#include "scenario/diagnostics.hpp"

namespace xfer {

std::string format_diagnostic(const Diagnostic& d) {
    std::string s = d.file;
    // A diagnostic about the file as a whole (no [[run]] at all) has no position to give.
    if (d.line > 0) {
        s += ":" + std::to_string(d.line);
        if (d.column > 0) s += ":" + std::to_string(d.column);
    }
    s += ": error: ";
    if (!d.key.empty()) s += d.key + ": ";
    s += d.message;
    return s;
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

}  // namespace xfer
