#pragma once
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "scenario/scenario.hpp"

namespace xfer {

// Parses and validates a scenario file. `overrides` are "key=value" strings from --set, applied
// on top of the file with the same dotted keys ("threads.count=8", "transfer.bytes=1MiB").
// Throws ScenarioError carrying every diagnostic found.
Scenario load_scenario(const std::filesystem::path& file,
                       const std::vector<std::string>& overrides = {});

// Same, from text (tests; `name` is used as the file name in diagnostics).
Scenario parse_scenario(const std::string& text, const std::string& name,
                        const std::vector<std::string>& overrides = {});

// Expands runs x the [sweep] cartesian product into concrete runs, in order: for each sweep
// point, every [[run]] (so runs of one sweep point sit side by side).
std::vector<Run> expand_plan(const Scenario& scenario);

struct LoadedPlan {
    Scenario scenario;
    std::vector<Run> plan;
    // The file as read once, finished again with other overrides (`run --fit`'s sizes): what
    // load_scenario(file, overrides) gives, without reading the file again. Throws
    // ScenarioError.
    std::function<Scenario(const std::vector<std::string>& overrides)> with_overrides;
};

// What `run` and `check` both do with a file before asking the machine: load_scenario, every
// payload resolved in `payload_folders` (payload_files.hpp), expand_plan. Throws ScenarioError.
LoadedPlan load_plan(const std::filesystem::path& file, const std::vector<std::string>& overrides,
                     const std::vector<std::filesystem::path>& payload_folders);

}  // namespace xfer
