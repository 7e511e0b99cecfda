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

// params["a"]["b"] = value for path "a.b" (tables made as needed). False with `why` when a part
// is empty or a part on the way is not a table.
bool set_param(nlohmann::json& params, const std::string& path, const nlohmann::json& value,
               std::string& why);

// Whether params holds path "a.b"; erase_param removes it (and tables it leaves empty).
bool has_param(const nlohmann::json& params, const std::string& path);
void erase_param(nlohmann::json& params, const std::string& path);

// Applies each flag to `s`. A transfer/threads/staging/params key replaces the scenario's
// default, drops that key from [sweep], and drops it from every [[run]]'s overrides or params:
// the command line has the last word. Diagnostics name file "--set", line = the flag's position (1-based) and the column in
// "key=value".
void apply_set_flags(Scenario& s, const std::vector<std::string>& flags,
                     std::vector<Diagnostic>& diagnostics);

}  // namespace xfer::scenario_internal
