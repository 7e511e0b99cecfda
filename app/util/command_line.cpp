#include "util/command_line.hpp"

#include <cctype>
#include <filesystem>
#include <string_view>
#include <system_error>

namespace xfer {

namespace {

CommandLine& recorded() {
    static CommandLine line;
    return line;
}

// Characters that a POSIX shell reads as something other than part of a word.
bool needs_quotes(const std::string& word) {
    if (word.empty()) return true;
    for (char c : word)
        if (!(std::isalnum(static_cast<unsigned char>(c)) ||
              std::string_view("@%+=:,./-_").find(c) != std::string_view::npos))
            return true;
    return false;
}

}  // namespace

void record_command_line(int argc, const char* const* argv) {
    CommandLine& line = recorded();
    line.argv.assign(argv, argv + argc);
    std::error_code ec;
    line.cwd = std::filesystem::current_path(ec).string();
}

const CommandLine& command_line() { return recorded(); }

std::string shell_text(const std::vector<std::string>& argv) {
    std::string out;
    for (const std::string& word : argv) {
        if (!out.empty()) out += ' ';
        if (!needs_quotes(word)) {
            out += word;
            continue;
        }
        out += '\'';  // inside single quotes only ' itself needs care: '\''
        for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
        out += '\'';
    }
    return out;
}

}  // namespace xfer
