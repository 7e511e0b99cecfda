// The bash completion script. What a value completes to follows from the option's type name as
// CLI11 reports it (cli.cpp sets them): "TEXT:{a,b}" (a check against a list) completes to the
// list, "DIR" to folders, "FILE.toml" or "FILE.json|jsonl|sqlite" to folders and files with those
// extensions, "KEY=VALUE" to the scenario keys --set takes; anything else to files.
#include "cli/cmd_completion.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <iostream>
#include <set>

#include "cli/cli.hpp"
#include "cli/cmd_help.hpp"
#include "scenario/scenario_keys.hpp"
#include "util/version.hpp"

namespace xfer {
namespace {

std::string joined(const std::vector<std::string>& words, const std::string& separator) {
    std::string out;
    for (const auto& w : words) out += (out.empty() ? "" : separator) + w;
    return out;
}

std::vector<std::string> split(const std::string& text, char separator) {
    std::vector<std::string> parts;
    size_t start = 0;
    for (size_t end; (end = text.find(separator, start)) != std::string::npos; start = end + 1)
        parts.push_back(text.substr(start, end - start));
    parts.push_back(text.substr(start));
    return parts;
}

// The bash that completes a value of an option whose CLI11 type name is `type`.
std::string value_completion(const std::string& type) {
    const size_t colon = type.find(':');
    const std::string base = type.substr(0, colon);
    const std::string check = colon == std::string::npos ? "" : type.substr(colon + 1);
    if (check.size() > 2 && check.front() == '{' && check.back() == '}')
        return "_xferlab_words \"" + joined(split(check.substr(1, check.size() - 2), ','), " ") +
               "\"";
    if (base == "KEY=VALUE") return "_xferlab_set_keys";
    if (base == "DIR") return "_xferlab_dirs";
    if (base.rfind("FILE.", 0) == 0)
        return "_xferlab_files " + joined(split(base.substr(5), '|'), " ");
    return "_xferlab_files";
}

// The flags of a command ("--set", "-q") and, for those that take a value, the bash that
// completes it (by flag, in a `case $prev`).
std::string command_case(const CLI::App& sub) {
    std::vector<std::string> flags;
    std::string values, positional;
    for (const CLI::Option* opt : sub.get_options()) {
        if (!opt->nonpositional()) {
            positional = value_completion(opt->get_type_name());
            continue;
        }
        std::vector<std::string> names;
        for (const auto& n : opt->get_lnames()) names.push_back("--" + n);
        for (const auto& n : opt->get_snames()) names.push_back("-" + n);
        flags.insert(flags.end(), names.begin(), names.end());
        if (opt->get_expected_max() == 0) continue;  // a flag: no value
        values += fmt::format("        {}) {}; return 0 ;;\n", joined(names, " | "),
                              value_completion(opt->get_type_name()));
    }
    std::string out = fmt::format("    {})\n", sub.get_name());
    if (!values.empty()) out += "        case $prev in\n" + values + "        esac\n";
    out += fmt::format("        if [[ $cur == -* ]]; then _xferlab_words \"{}\"\n",
                       joined(flags, " "));
    if (!positional.empty()) out += "        else " + positional + "\n";
    return out + "        fi ;;\n";
}

// A word as bash reads it back whatever it holds: 'it', with each ' written '\''.
std::string quoted(const std::string& word) {
    std::string out = "'";
    for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

// The names completion is registered for: xferlab, and the path it was run by (as typed and
// absolute), quoted.
std::vector<std::string> command_names(const std::string& invoked_as) {
    std::set<std::string> names{"xferlab"};
    if (invoked_as.find('/') != std::string::npos) {
        names.insert(invoked_as);
        std::error_code ec;
        const auto absolute = std::filesystem::absolute(invoked_as, ec);
        if (!ec) names.insert(absolute.lexically_normal().string());
    }
    std::vector<std::string> out;
    for (const auto& n : names) out.push_back(quoted(n));
    return out;
}

// The script: {0} version, {1} --set keys, {2} command names as a case pattern, {3} the words
// after `xferlab`, {4} each command's case, {5} the names to complete for.
constexpr const char* kScript =
    R"(# bash completion for xferlab, written by `xferlab completion bash` (xferlab {0}):
# the commands and flags are the program's own, the --set keys its scenario keys.
# Use: source it, or put it in a bash-completion folder (tools/bootstrap.sh does).
_xferlab_words() {{ COMPREPLY=($(compgen -W "$1" -- "$cur")); }}
_xferlab_dirs() {{
    compopt -o filenames 2>/dev/null
    local IFS=$'\n'
    COMPREPLY=($(compgen -d -- "$cur"))
}}
_xferlab_files() {{
    compopt -o filenames 2>/dev/null
    local IFS=$'\n' ext
    COMPREPLY=($(compgen -d -- "$cur"))
    (($#)) || COMPREPLY+=($(compgen -f -- "$cur"))
    for ext; do COMPREPLY+=($(compgen -f -X "!*.$ext" -- "$cur")); done
}}
_xferlab_set_keys() {{
    compopt -o nospace 2>/dev/null
    _xferlab_words "{1}"
}}
_xferlab() {{
    local cur=${{COMP_WORDS[COMP_CWORD]}} prev=${{COMP_WORDS[COMP_CWORD-1]}} cmd="" i
    COMPREPLY=()
    for ((i = 1; i < COMP_CWORD; i++)); do
        case ${{COMP_WORDS[i]}} in
        {2}) cmd=${{COMP_WORDS[i]}}; break ;;
        esac
    done
    # After "=" (--set key=value) the value is the user's to write.
    [[ $cur == = || $prev == = ]] && return 0
    case $cmd in
    "") _xferlab_words "{3}" ;;
{4}    esac
    return 0
}}
complete -F _xferlab {5}
)";

}  // namespace

CLI::App* add_completion_command(CLI::App& app, std::string& shell) {
    auto* cmd = app.add_subcommand(
        "completion", "Print the shell completion script: source <(xferlab completion bash)");
    cmd->add_option("shell", shell, "The shell")
        ->required()
        ->check(CLI::IsMember(std::vector<std::string>{"bash"}));
    return cmd;
}

int cmd_completion(const CLI::App& app, const std::string& shell, const std::string& invoked_as) {
    (void)shell;  // CLI11 admits "bash" only
    std::vector<std::string> names, keys;
    std::string cases;
    for (const CLI::App* sub : visible_commands(app)) {
        names.push_back(sub->get_name());
        cases += command_case(*sub);
    }
    for (const auto& k : set_flag_keys()) keys.push_back(k + "=");
    keys.push_back("params.");
    std::cout << fmt::format(kScript, tool_version(), joined(keys, " "), joined(names, " | "),
                             "--help --version " + joined(names, " "), cases,
                             joined(command_names(invoked_as), " "));
    return exit_ok;
}

}  // namespace xfer
