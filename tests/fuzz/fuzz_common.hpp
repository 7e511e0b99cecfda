#pragma once
// What both fuzz targets do with a scenario that parsed: everything the CLI does with one
// before anything runs (expand the plan, resolve each run to JSON, format the diagnostics), so that
// the fuzzers reach the code a user's typo reaches. Anything thrown other than ScenarioError
// escapes and libFuzzer reports it as a crash.
#include <string>
#include <vector>

#include "scenario/diagnostics.hpp"
#include "scenario/loader.hpp"

namespace xfer::fuzz {

inline void parse_and_expand(const std::string& text, const std::string& name,
                             const std::vector<std::string>& overrides) {
    try {
        // Serialising the JSON (dump) is left out: nlohmann's serializer is not ours, and at
        // -O0 with coverage it took most of each execution.
        const Scenario s = parse_scenario(text, name, overrides);
        for (const Run& run : expand_plan(s)) (void)to_json(run);
    } catch (const ScenarioError& e) {
        // Every diagnostic is printed to the user: format each one (and what()).
        for (const Diagnostic& d : e.diagnostics()) (void)format_diagnostic(d);
        (void)std::string(e.what());
    }
}

}  // namespace xfer::fuzz
