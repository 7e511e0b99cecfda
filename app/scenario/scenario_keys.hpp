#pragma once
// Every key a scenario file takes, described once (key, type, default, meaning, the values it
// takes) for `xferlab help scenario-keys` and the shell completion. The [transfer], [staging]
// and [threads] keys are settings/setting_keys.hpp's table; the [scenario] and [[run]] keys are
// the tables here, shared by the file reader and --set. docs/scenarios.md says more about each.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "settings/vocabulary.hpp"
#include "scenario/scenario.hpp"
#include "settings/messages.hpp"

namespace xfer {

struct ScenarioKeyDescriptor {
    std::string key;                  // dotted, with its table: "scenario.name", "run.gil",
                                      // "run.transfer.<key>" (placeholders in angle brackets)
    std::string type;                 // "string", "size or integer", ...
    std::string default_value;        // a TOML value ("64 MiB" quoted, 8, true), or in parentheses
                                      // what stands in for one: "(file name)"
    std::string meaning;              // one line, with the values and where the key applies
    std::vector<std::string> values;  // the names it takes (completion); empty: no names
};

// Every key, in docs/scenarios.md's order: [scenario], [transfer], [threads], [staging],
// [params], [[run]], [sweep].
const std::vector<ScenarioKeyDescriptor>& scenario_key_descriptors();

// The keys --set takes: scenario.<key>, transfer.<key>, threads.<key> and staging.<key>
// (params.<key> is free-form).
std::vector<std::string> set_flag_keys();

}  // namespace xfer

namespace xfer::scenario_internal {

// name, description, backend, timeout, trials, order, seed, baseline: the [scenario] keys.
const std::vector<std::string>& scenario_keys();
// Validates and stores [scenario] `key` (without the "scenario." prefix).
SettingResult apply_scenario_key(const std::string& key, const nlohmann::json& value, Scenario& s);

// A [[run]] key that only some launchers take: set for another, it would be silently ignored,
// so the file reader refuses it (a run must isolate what its file says).
struct LauncherOnlyKey {
    std::string name;             // "gil"
    bool LauncherTraits::*trait;  // the launchers that take it
    std::string refusal;          // "never touches the GIL; gil is for"
    // When given: whether the key counts as set (its default is taken by every launcher).
    bool (*set_in)(const RunSpec&) = nullptr;
};
const std::vector<LauncherOnlyKey>& launcher_only_keys();

// launcher, label, payload, gil, mimic, transfer, threads, staging, params: the [[run]] keys.
const std::vector<std::string>& run_keys();

}  // namespace xfer::scenario_internal
