#include "scenario/loader.hpp"

#include <fmt/format.h>
#include <toml++/toml.h>

#include <algorithm>
#include <memory>
#include <tuple>

#include "scenario/diagnostics.hpp"
#include "scenario/file_reader.hpp"
#include "scenario/payload_files.hpp"
#include "scenario/plan.hpp"
#include "scenario/set_flags.hpp"
#include "scenario/toml_support.hpp"
#include "scenario/trials.hpp"
#include "util/input_file.hpp"
#include "util/utf8.hpp"

namespace xfer {

namespace scenario_internal {

ScenarioFile read_scenario_text(const std::string& text, const std::string& name) {
    const toml::table root = parse_toml(text, name);
    ScenarioFile file;
    file.name = name;
    file.scenario.source = name;
    file.scenario.name = std::filesystem::path(name).stem().string();
    file.facts = read_scenario_file(root, name, file.scenario, file.diagnostics);
    return file;
}

namespace {

// The flags as UTF-8: results, journal and report are UTF-8 throughout, so a byte that is not
// (a shell's Latin-1 "caf\xe9") is replaced by U+FFFD here, once, and the scenario says so.
std::vector<std::string> utf8_flags(const std::vector<std::string>& flags, Scenario& s) {
    std::vector<std::string> out;
    for (size_t i = 0; i < flags.size(); ++i) {
        if (valid_utf8(flags[i])) {
            out.push_back(flags[i]);
            continue;
        }
        out.push_back(replace_invalid_utf8(flags[i]));
        s.notes.push_back(fmt::format(
            "--set flag {} is not valid UTF-8: its invalid bytes were replaced by U+FFFD ({})",
            i + 1, out.back()));
    }
    return out;
}

}  // namespace

Scenario finish_scenario(ScenarioFile file, const std::vector<std::string>& raw_overrides) {
    const std::string& name = file.name;
    const FileFacts& facts = file.facts;
    Scenario& s = file.scenario;
    std::vector<Diagnostic>& diagnostics = file.diagnostics;
    const std::vector<std::string> overrides = utf8_flags(raw_overrides, s);
    apply_set_flags(s, overrides, diagnostics);
    choose_seed(s);
    if (auto problem = baseline_problem(s)) {
        diagnostics.push_back(
            facts.baseline_position
                ? diagnostic_at(name, *facts.baseline_position, "scenario.baseline", *problem)
                : Diagnostic{name, 0, 0, "scenario.baseline", *problem});
    }

    if (!facts.has_run) {
        diagnostics.push_back(
            Diagnostic{name, 0, 0, "run",
                       "no [[run]] table: add at least one, e.g. [[run]] launcher = \"host\""});
    }
    if (auto problem = plan_size_problem(s)) {
        diagnostics.push_back(facts.has_sweep
                                  ? diagnostic_at(name, facts.sweep_position, "sweep", *problem)
                                  : Diagnostic{name, 0, 0, "sweep", *problem});
    }
    if (!diagnostics.empty()) {
        // In the order of the file (--set flags after it, position-less ones last), as a reader
        // fixing them top to bottom expects; checks that run late find problems early in a file.
        std::stable_sort(diagnostics.begin(), diagnostics.end(),
                         [&](const Diagnostic& a, const Diagnostic& b) {
                             auto rank = [&](const Diagnostic& d) {
                                 return std::tuple(d.file != name, d.line == 0, d.line, d.column);
                             };
                             return rank(a) < rank(b);
                         });
        throw ScenarioError(std::move(diagnostics));
    }
    s.resolved = resolved_json(s, overrides);
    return std::move(s);
}

}  // namespace scenario_internal

Scenario parse_scenario(const std::string& text, const std::string& name,
                        const std::vector<std::string>& overrides) {
    using namespace scenario_internal;
    return finish_scenario(read_scenario_text(text, name), overrides);
}

namespace {

// A folder opens as a file but reads as nothing, which parsed as "no [[run]] table".
std::string folder_message(const std::filesystem::path& folder) {
    size_t scenarios = 0;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(folder, ec))
        if (e.path().extension() == ".toml") ++scenarios;
    const std::string files = (folder / "*.toml").string();
    return "is a folder, not a scenario file: give the scenario files in it (" + files +
           (scenarios == 0 ? " matches none)"
                           : " matches " + std::to_string(scenarios) + " file" +
                                 (scenarios == 1 ? ")" : "s)"));
}

// The text of a scenario file; a ScenarioError when it cannot be read. Only a regular file
// is read, and at most kMaxTextInputBytes of it: /dev/zero never ends, a FIFO waits.
std::string scenario_text(const std::filesystem::path& file) {
    std::error_code ec;
    if (std::filesystem::is_directory(file, ec))
        throw ScenarioError({Diagnostic{file.string(), 0, 0, "", folder_message(file)}});
    std::string why;
    auto text = read_input_file(file, kMaxTextInputBytes, why);
    if (!text)
        throw ScenarioError(
            {Diagnostic{file.string(), 0, 0, "", "cannot read the scenario file: " + why}});
    return std::move(*text);
}

}  // namespace

Scenario load_scenario(const std::filesystem::path& file,
                       const std::vector<std::string>& overrides) {
    return parse_scenario(scenario_text(file), file.string(), overrides);
}

LoadedPlan load_plan(const std::filesystem::path& file, const std::vector<std::string>& overrides,
                     const std::vector<std::filesystem::path>& payload_folders) {
    using namespace scenario_internal;
    const auto read = std::make_shared<const ScenarioFile>(
        read_scenario_text(scenario_text(file), file.string()));
    LoadedPlan out{finish_scenario(*read, overrides), {}, {}};
    out.with_overrides = [read](const std::vector<std::string>& other) {
        return finish_scenario(*read, other);
    };
    check_payloads(out.scenario, payload_folders);
    out.plan = expand_plan(out.scenario);
    return out;
}

}  // namespace xfer
