#pragma once
// The [scenario] keys and the [[run]] vocabulary, shared by the file reader and --set.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "scenario/scenario.hpp"
#include "scenario/settings.hpp"

namespace xfer::scenario_internal {

// name, description, backend, timeout.
const std::vector<std::string>& scenario_keys();
// Validates and stores [scenario] `key` (without the "scenario." prefix).
SettingResult apply_scenario_key(const std::string& key, const nlohmann::json& value, Scenario& s);

// launcher, label, payload, gil, mimic, transfer, threads.
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
