#include "run/config.hpp"

#include <algorithm>
#include <cstdlib>

#include <fmt/format.h>
#include <toml++/toml.h>

#include "embed/python.hpp"
#include "scenario/diagnostics.hpp"
#include "scenario/toml_support.hpp"
#include "report/render/formats.hpp"
#include "settings/vocabulary.hpp"
#include "util/input_file.hpp"
#include "util/units.hpp"

namespace xfer {
namespace fs = std::filesystem;

fs::path default_config_path() {
    if (const char* dir = std::getenv("XFERLAB_CONFIG_DIR")) return fs::path(dir) / "xferlab.toml";
    return fs::path(XFER_SOURCE_DIR) / "config" / "xferlab.toml";
}

std::optional<fs::path> user_config_path() {
    fs::path base;
    if (const char* xdg = std::getenv("XDG_CONFIG_HOME"); xdg && *xdg) {
        base = xdg;
    } else if (const char* home = std::getenv("HOME"); home && *home) {
        base = fs::path(home) / ".config";
    } else {
        return std::nullopt;
    }
    fs::path p = base / "xferlab" / "xferlab.toml";
    if (fs::exists(p)) return p;
    return std::nullopt;
}

namespace {

Diagnostic at(const fs::path& file, const toml::node& node, const std::string& key,
              const std::string& message) {
    return scenario_internal::diagnostic_at(file.string(), node.source(), key, message);
}

// run.payload_dir: a folder or an array of folders, searched in order before the default one.
// A later config file replaces an earlier one's list.
template <class Resolve>
void read_payload_dirs(const fs::path& file, const toml::node& value, const Resolve& resolve,
                       Config& config, std::vector<Diagnostic>& errors) {
    std::vector<fs::path> dirs;
    auto add = [&](const toml::node& n) {
        auto text = n.value<std::string>();
        if (!text || text->empty())
            errors.push_back(at(file, n, "run.payload_dir", "expected a folder name (a string)"));
        else
            dirs.push_back(resolve(*text));
    };
    if (const auto* arr = value.as_array()) {
        for (const auto& n : *arr) add(n);
    } else {
        add(value);
    }
    config.payload_dirs = std::move(dirs);
}

// python.executable: an interpreter this build can embed (it exists, runs, and a venv it
// belongs to is of the embedded Python's version). Relative to the config file's folder.
template <class Resolve>
void read_python_executable(const fs::path& file, const toml::node& value, const Resolve& resolve,
                            Config& config, std::vector<Diagnostic>& errors) {
    const auto text = value.value<std::string>();
    if (!text || !value.is_string() || text->empty()) {
        errors.push_back(at(file, value, "python.executable",
                            "expected the path of a Python interpreter, e.g. "
                            "\"/home/me/venv/bin/python3\""));
        return;
    }
    const fs::path executable = resolve(*text);
    if (const std::string problem = python_executable_problem(executable); !problem.empty()) {
        errors.push_back(at(file, value, "python.executable", executable.string() + " " + problem));
        return;
    }
    config.python_executable = executable;
    config.python_executable_origin = fmt::format(
        "{}:{}:{}", file.string(), value.source().begin.line, value.source().begin.column);
}

// Applies one config file onto `config`, collecting every error.
void apply_file(const fs::path& file, Config& config, std::vector<Diagnostic>& errors) {
    // As a scenario file is read: a regular file, bounded, and no deeper than TOML++ can take.
    std::string why;
    const auto text = read_input_file(file, kMaxTextInputBytes, why);
    if (!text) {
        errors.push_back({file.string(), 0, 0, "", "cannot read the config file: " + why});
        return;
    }
    toml::table table;
    try {
        table = scenario_internal::parse_toml(*text, file.string());
    } catch (const ScenarioError& e) {
        errors.insert(errors.end(), e.diagnostics().begin(), e.diagnostics().end());
        return;
    }
    const fs::path base = fs::absolute(file).parent_path();
    auto resolve = [&](const std::string& p) { return fs::path(p).is_absolute() ? fs::path(p) : base / p; };

    static const std::vector<std::pair<std::string, std::vector<std::string>>> known = {
        {"output", {"dir", "reporters", "format", "plots", "inline_records", "trace_copies"}},
        {"run", {"backend", "payload_dir", "scenario_dir", "timeout"}},
        {"python", {"executable"}}};
    for (const auto& [section, node] : table) {
        std::string name(section.str());
        auto it = std::find_if(known.begin(), known.end(), [&](auto& k) { return k.first == name; });
        if (it == known.end() || !node.is_table()) {
            errors.push_back(
                at(file, node, name, "unknown section (allowed: output, run, python)"));
            continue;
        }
        for (const auto& [key, value] : *node.as_table()) {
            std::string k(key.str());
            std::string dotted = name + "." + k;
            if (std::find(it->second.begin(), it->second.end(), k) == it->second.end()) {
                std::string allowed;
                for (auto& a : it->second) allowed += (allowed.empty() ? "" : ", ") + a;
                errors.push_back(at(file, value, dotted, "unknown key (allowed: " + allowed + ")"));
                continue;
            }
            if (dotted == "output.reporters") {
                const auto* arr = value.as_array();
                if (!arr) {
                    errors.push_back(at(file, value, dotted, "expected an array of names"));
                    continue;
                }
                config.reporters.clear();
                for (const auto& r : *arr) {
                    auto s = r.value<std::string>();
                    const auto names = file_format_names();
                    if (!s || std::find(names.begin(), names.end(), *s) == names.end()) {
                        errors.push_back(
                            at(file, r, dotted, "expected one of: " + join_names(names)));
                        continue;
                    }
                    config.reporters.push_back(*s);
                }
                continue;
            }
            if (dotted == "python.executable") {
                read_python_executable(file, value, resolve, config, errors);
                continue;
            }
            if (dotted == "run.payload_dir") {
                read_payload_dirs(file, value, resolve, config, errors);
                continue;
            }
            if (dotted == "output.inline_records" || dotted == "output.trace_copies") {
                const auto n = value.value<int64_t>();
                if (!n || !value.is_integer() || *n < 0) {
                    errors.push_back(at(file, value, dotted, "expected a whole number >= 0"));
                } else if (dotted == "output.inline_records") {
                    config.inline_records = *n;
                } else {
                    config.trace_copies = size_t(*n);
                }
                continue;
            }
            if (dotted == "output.plots") {
                if (auto flag = value.value<bool>(); flag && value.is_boolean())
                    config.plots = *flag;
                else
                    errors.push_back(at(file, value, dotted, "expected true or false"));
                continue;
            }
            auto text = value.value<std::string>();
            if (!text) {
                errors.push_back(at(file, value, dotted, "expected a string"));
                continue;
            }
            if (dotted == "output.dir") {
                config.output_dir = *text;
            } else if (dotted == "output.format") {
                const auto names = terminal_format_names();
                if (std::find(names.begin(), names.end(), *text) == names.end())
                    errors.push_back(
                        at(file, value, dotted, "expected one of: " + join_names(names)));
                else
                    config.format = *text;
            } else if (dotted == "run.backend") {
                const auto names = backend_choices();
                if (std::find(names.begin(), names.end(), *text) == names.end())
                    errors.push_back(
                        at(file, value, dotted, "expected one of: " + join_names(names)));
                else
                    config.backend = *text;
            } else if (dotted == "run.scenario_dir") {
                config.scenario_dir = resolve(*text);
            } else if (dotted == "run.timeout") {
                auto ns = parse_duration_ns(*text);
                const std::string too_long = ns ? duration_limit_problem(*ns) : "";
                if (!ns || *ns < 0 || !too_long.empty())
                    errors.push_back(
                        at(file, value, dotted,
                           "expected a duration such as \"10min\", \"30s\" or \"0\"" +
                               (too_long.empty() ? "" : "; got \"" + *text + "\": " + too_long)));
                else
                    config.timeout_ns = *ns;
            }
        }
    }
    config.sources.push_back(file);
}

}  // namespace

std::vector<fs::path> payload_search_path(const Config& config) {
    std::vector<fs::path> out;
    auto add = [&](const fs::path& dir) {
        const fs::path p = fs::absolute(dir).lexically_normal();
        if (std::find(out.begin(), out.end(), p) == out.end()) out.push_back(p);
    };
    for (const auto& dir : config.payload_dirs) add(dir);
    add(config.default_payload_dir);
    return out;
}

Config load_config(const std::optional<fs::path>& user) {
    Config config;
    const fs::path root = fs::path(XFER_SOURCE_DIR);
    config.default_payload_dir = root / "python_payloads";
    config.scenario_dir = root / "scenarios";
    std::vector<Diagnostic> errors;
    fs::path defaults = default_config_path();
    if (fs::exists(defaults)) apply_file(defaults, config, errors);
    std::optional<fs::path> extra = user ? user : user_config_path();
    if (extra) {
        if (!fs::exists(*extra))
            errors.push_back({extra->string(), 0, 0, "", "config file not found"});
        else
            apply_file(*extra, config, errors);
    }
    if (!errors.empty()) throw ScenarioError(std::move(errors));
    return config;
}

}  // namespace xfer
