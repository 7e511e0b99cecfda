#pragma once
// The [transfer] and [threads] keys: one table of validators shared by the file's tables,
// [[run]] overrides, [sweep] values, --set and the plan expansion, so that every path accepts
// exactly the same values with the same messages.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "scenario/scenario.hpp"

namespace xfer::scenario_internal {

struct SettingError {
    std::string message;  // what was expected, the allowed values, what was given
    int element = -1;     // index of the offending array element, -1 for the value itself
};
using SettingResult = std::optional<SettingError>;

// How a value reads in a message: "a string \"x\"", "an integer (5)", "an array", ...
std::string describe(const nlohmann::json& value);

// "\"a\", \"b\" or \"c\"".
std::string quoted_list(const std::vector<std::string>& names);

// An error naming the allowed values, with a did-you-mean when the value is a near miss.
SettingError not_one_of(const nlohmann::json& value, const std::vector<std::string>& allowed);

// The tables whose keys are settings: "transfer", "threads", "staging".
const std::vector<std::string>& setting_tables();
// Keys of one of those tables (without the table prefix), in documentation order.
const std::vector<std::string>& setting_keys(const std::string& table);
// Every "transfer.x", "threads.x" and "staging.x" key.
std::vector<std::string> all_setting_keys();
bool is_setting_key(const std::string& dotted);

// Validates `value` for `dotted` ("threads.count") and stores it. Unknown keys are the caller's
// to report (is_setting_key first).
SettingResult apply_setting(const std::string& dotted, const nlohmann::json& value,
                            TransferSpec& transfer, ThreadSpec& threads);

// Every key with its value, in the file's vocabulary; sizes and durations also as numbers.
nlohmann::json transfer_to_json(const TransferSpec& t);
nlohmann::json threads_to_json(const ThreadSpec& t);
nlohmann::json staging_to_json(const StagingSpec& s);

// A value as a label shows it: strings bare ("256KiB"), anything else as JSON ("[0,1]").
std::string value_text(const nlohmann::json& value);

}  // namespace xfer::scenario_internal
