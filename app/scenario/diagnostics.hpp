#pragma once
// Errors in scenario files and --set flags. A loader collects every error of a file before it
// throws, so the user fixes them in one pass.
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

namespace xfer {

struct Diagnostic {
    std::string file;     // path as given, or "--set" for command-line overrides
    int line = 0;         // 1-based; 0 when unknown
    int column = 0;       // 1-based; 0 when unknown
    std::string key;      // dotted key, e.g. "threads.stack_size"
    std::string message;  // what was expected, the allowed values, a did-you-mean
};

// "file:line:column: error: key: message"
std::string format_diagnostic(const Diagnostic& d);

// What the user most likely did, for a TOML parser's `description` of a syntax error at
// `line`:`column` (1-based) of `text`, where the parser names only the symptom: a string left
// open ("unescaped control characters", "encountered end-of-file" inside a string) is a
// missing closing quote. Empty when there is nothing to add.
std::string syntax_error_hint(const std::string& description, const std::string& text, int line,
                              int column);

class ScenarioError : public std::runtime_error {
  public:
    explicit ScenarioError(std::vector<Diagnostic> diagnostics);
    const std::vector<Diagnostic>& diagnostics() const { return diagnostics_; }

  private:
    std::vector<Diagnostic> diagnostics_;
};

// Every diagnostic of `e`, formatted, one per line.
void print_diagnostics(const ScenarioError& e, std::ostream& out);

}  // namespace xfer
