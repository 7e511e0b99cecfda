#pragma once
// How a refused value is put in a message: what was expected, the allowed values, what was
// given, and the closest allowed value. Every key's check uses these, so that the file's
// tables, [[run]], [sweep] and --set refuse a value in the same words.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace xfer {

struct SettingError {
    std::string message;  // what was expected, the allowed values, what was given
    int element = -1;     // index of the offending array element, -1 for the value itself
};
using SettingResult = std::optional<SettingError>;

// How a value reads in a message: "a string \"x\"", "an integer (5)", "an array", ...
std::string describe(const nlohmann::json& value);

// "\"a\", \"b\" or \"c\"".
std::string quoted_list(const std::vector<std::string>& names);

// "a, b or c".
std::string plain_list(const std::vector<std::string>& names);

// `help` with "{values}" replaced by the values' plain list: a key's or an option's meaning.
std::string with_values(const std::string& help, const std::vector<std::string>& values);

// An error naming the allowed values, with a did-you-mean when the value is a near miss.
SettingError not_one_of(const nlohmann::json& value, const std::vector<std::string>& allowed);

// "expected <what>; got <value>".
SettingError expected(const std::string& what, const nlohmann::json& value);

}  // namespace xfer
