#pragma once
// Walks a parsed scenario file into a Scenario, collecting a diagnostic for every problem
// instead of stopping at the first.
#include <toml++/toml.h>

#include <optional>
#include <string>
#include <vector>

#include "scenario/diagnostics.hpp"
#include "scenario/scenario.hpp"

namespace xfer::scenario_internal {

struct FileFacts {
    bool has_run = false;                // a "run" key exists (even if its tables had errors)
    toml::source_region sweep_position;  // where [sweep] is, for the plan-size limit
    bool has_sweep = false;
    // Where scenario.baseline is written, for "no [[run]] has the label".
    std::optional<toml::source_region> baseline_position;
};

FileFacts read_scenario_file(const toml::table& root, const std::string& file, Scenario& s,
                             std::vector<Diagnostic>& diagnostics);

// parse_scenario (loader.hpp) in two halves, so that many sets of --set flags can be tried on one
// reading of a file (tests/fuzz/fuzz_set_flags.cpp): the file read, its diagnostics kept for
// later; then the flags applied and every check made (throws ScenarioError).
struct ScenarioFile {
    std::string name;
    Scenario scenario;
    FileFacts facts;
    std::vector<Diagnostic> diagnostics;
};
ScenarioFile read_scenario_text(const std::string& text, const std::string& name);
Scenario finish_scenario(ScenarioFile file, const std::vector<std::string>& overrides);

}  // namespace xfer::scenario_internal
