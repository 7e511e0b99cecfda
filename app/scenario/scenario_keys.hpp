#pragma once
// Every key a scenario file takes, described once (key, type, default, one-line meaning) for
// `xferlab help scenario-keys` and the shell completion; and the [scenario] keys and the [[run]]
// vocabulary, shared by the file reader and --set. docs/scenarios.md says more about each key.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "scenario/scenario.hpp"
#include "scenario/settings.hpp"

namespace xfer {

struct ScenarioKeyDescriptor {
    std::string key;            // dotted, with its table: "scenario.name", "run.gil",
                                // "run.transfer.<key>" (placeholders in angle brackets)
    std::string type;           // "string", "size or integer", ...
    std::string default_value;  // a TOML value ("64 MiB" quoted, 8, true), or in parentheses
                                // what stands in for one: "(file name)"
    std::string meaning;        // one line
};

// Every key, in docs/scenarios.md's order: [scenario], [transfer], [threads], [staging], [params],
// [[run]], [sweep]. The [transfer] and [threads] keys are the validators' (settings.cpp), the
// [scenario] and [[run]] keys are the reader's (scenario_keys(), run_keys()).
const std::vector<ScenarioKeyDescriptor>& scenario_key_descriptors();

// The keys --set takes: scenario.<key>, transfer.<key>, threads.<key> (params.<key> is
// free-form).
std::vector<std::string> set_flag_keys();

}  // namespace xfer

namespace xfer::scenario_internal {

// name, description, backend, timeout: the "scenario." descriptors.
const std::vector<std::string>& scenario_keys();
// Validates and stores [scenario] `key` (without the "scenario." prefix).
SettingResult apply_scenario_key(const std::string& key, const nlohmann::json& value, Scenario& s);

// launcher, label, payload, gil, mimic, transfer, threads: the "run." descriptors' first parts.
const std::vector<std::string>& run_keys();
// Which launchers take which [[run]] keys (a key a launcher ignores is an error, not a no-op);
// read from results/vocabulary.hpp.
bool launcher_takes_payload(const std::string& launcher);
bool launcher_needs_payload(const std::string& launcher);
bool launcher_takes_gil(const std::string& launcher);
bool launcher_takes_mimic(const std::string& launcher);

// The text of a timeout: "none" for 0, else an exact duration ("30 s").
std::string timeout_text(int64_t ns);

}  // namespace xfer::scenario_internal
