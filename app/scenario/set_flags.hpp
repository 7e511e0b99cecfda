#pragma once
// --set key=value: the file's dotted keys, validated by the same rules, applied on top of it.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "scenario/diagnostics.hpp"
#include "scenario/scenario.hpp"

namespace xfer::scenario_internal {

// The value text as TOML when it parses as one value (8, true, [1, 2], "x"), else the text
// itself as a string, so that 1MiB and pinned need no quotes on a command line.
nlohmann::json parse_set_value(const std::string& text);

// Applies each flag to `s`. A transfer/threads key replaces the scenario's default, drops that
// key from [sweep], and drops it from every [[run]]'s overrides: the command line has the last
// word. Diagnostics name file "--set", line = the flag's position (1-based) and the column in
// "key=value".
void apply_set_flags(Scenario& s, const std::vector<std::string>& flags,
                     std::vector<Diagnostic>& diagnostics);

}  // namespace xfer::scenario_internal
