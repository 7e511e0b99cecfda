#pragma once
// What both fuzz targets do with a scenario that parsed: everything the CLI does with one
// before anything runs (expand the plan, resolve each run to JSON, format the diagnostics), so that
// the fuzzers reach the code a user's typo reaches. Anything thrown other than ScenarioError
// escapes and libFuzzer reports it as a crash.
#include <string>
#include <vector>

#include "scenario/diagnostics.hpp"
#include "scenario/file_reader.hpp"
#include "scenario/loader.hpp"

namespace xfer::fuzz {

// Formats every diagnostic, as the CLI prints each one to the user (and what()).
inline void format_all(const ScenarioError& e) {
    for (const Diagnostic& d : e.diagnostics()) (void)format_diagnostic(d);
    (void)std::string(e.what());
}

// Expands the plan and resolves every run; serialising the JSON (dump) is left out: nlohmann's
// serializer is not ours, and at -O0 with coverage it took most of each execution.
inline void expand(const Scenario& s) {
    for (const Run& run : expand_plan(s)) (void)nlohmann::json(run.settings);
}

inline void parse_and_expand(const std::string& text, const std::string& name,
                             const std::vector<std::string>& overrides) {
    try {
        expand(parse_scenario(text, name, overrides));
    } catch (const ScenarioError& e) {
        format_all(e);
    }
}

// The same with the file read once (scenario_internal::read_scenario_text) and `overrides`
// applied to a copy of that reading: what parse_scenario does, without re-reading the file.
inline void apply_and_expand(const scenario_internal::ScenarioFile& file,
                             const std::vector<std::string>& overrides) {
    try {
        expand(scenario_internal::finish_scenario(file, overrides));
    } catch (const ScenarioError& e) {
        format_all(e);
    }
}

}  // namespace xfer::fuzz
