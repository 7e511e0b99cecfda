#include "scenario/set_flags.hpp"

#include <toml++/toml.h>

#include <algorithm>

#include "scenario/scenario_keys.hpp"
#include "scenario/toml_depth.hpp"
#include "scenario/toml_support.hpp"
#include "settings/setting_keys.hpp"
#include "util/suggest.hpp"
#include "util/units.hpp"

namespace xfer::scenario_internal {

using nlohmann::json;

namespace {

// The parts of "a.b.c"; none may be empty (set_param says so; the others only look).
std::vector<std::string> param_parts(const std::string& path) {
    std::vector<std::string> parts;
    size_t begin = 0;
    for (size_t dot; (dot = path.find('.', begin)) != std::string::npos; begin = dot + 1)
        parts.push_back(path.substr(begin, dot - begin));
    parts.push_back(path.substr(begin));
    return parts;
}

bool erase_parts(json& at, const std::vector<std::string>& parts, size_t i) {
    if (!at.is_object() || !at.contains(parts[i])) return false;
    if (i + 1 == parts.size()) {
        at.erase(parts[i]);
        return true;
    }
    json& inner = at[parts[i]];
    const bool erased = erase_parts(inner, parts, i + 1);
    if (erased && inner.is_object() && inner.empty()) at.erase(parts[i]);
    return erased;
}

}  // namespace

// A part on the way that is null becomes a table: params.a.b=1 on empty params makes {a: {b: 1}}.
bool set_param(json& params, const std::string& path, const json& value, std::string& why) {
    const std::vector<std::string> parts = param_parts(path);
    json* at = &params;
    std::string table = "params";  // what `at` is, as the error names it
    for (size_t i = 0; i < parts.size(); ++i) {
        if (parts[i].empty()) {
            why = "empty part in params key '" + path + "'";
            return false;
        }
        if (!at->is_object()) {
            why = table + " is not a table, so it cannot hold '" + parts[i] + "'";
            return false;
        }
        at = &(*at)[parts[i]];
        if (i + 1 == parts.size()) break;
        if (at->is_null()) *at = json::object();
        table += "." + parts[i];
    }
    *at = value;
    return true;
}

bool has_param(const json& params, const std::string& path) {
    const json* at = &params;
    for (const std::string& part : param_parts(path)) {
        if (!at->is_object() || !at->contains(part)) return false;
        at = &(*at)[part];
    }
    return true;
}

void erase_param(json& params, const std::string& path) {
    erase_parts(params, param_parts(path), 0);
}

json parse_set_value(const std::string& text) {
    try {
        toml::table t = toml::parse("v = " + text);
        const toml::node* v = t.get("v");
        // One value and nothing else; dates stay text (no key takes a date).
        if (t.size() == 1 && v && !v->is_date() && !v->is_time() && !v->is_date_time()) {
            return toml_to_json(*v);
        }
    } catch (const toml::parse_error&) {
        // Not a TOML value: the text itself is the value.
    }
    return trim_blanks(text);
}

void apply_set_flags(Scenario& s, const std::vector<std::string>& flags,
                     std::vector<Diagnostic>& diagnostics) {
    std::string set_tables = "scenario.<key>";
    for (const std::string& table : setting_tables()) set_tables += ", " + table + ".<key>";
    set_tables += " and params.<key>";
    for (size_t i = 0; i < flags.size(); ++i) {
        const std::string& flag = flags[i];
        const int line = int(i + 1);
        auto error = [&](int column, const std::string& key, const std::string& message) {
            diagnostics.push_back(Diagnostic{"--set", line, column, key, message});
        };
        const size_t eq = flag.find('=');
        const std::string key = trim_blanks(flag.substr(0, eq));
        if (eq == std::string::npos || key.empty()) {
            error(1, "", "expected key=value, e.g. --set threads.count=8; got '" + flag + "'");
            continue;
        }
        const std::string text = flag.substr(eq + 1);
        const size_t lead = text.find_first_not_of(" \t");
        const int column = int(eq + 2 + (lead == std::string::npos ? 0 : lead));
        // Parsed as the value of a key: "v = " before it, 4 characters the column leaves out.
        if (const auto deep = toml_depth_problem("v = " + text)) {
            error(int(eq) + 2 + deep->column - 5, key, toml_depth_message(*deep));
            continue;
        }
        const json value = parse_set_value(text);

        if (key.rfind("scenario.", 0) == 0 &&
            std::find(scenario_keys().begin(), scenario_keys().end(), key.substr(9)) !=
                scenario_keys().end()) {
            if (auto err = apply_scenario_key(key.substr(9), value, s)) {
                error(column, key, err->message);
            }
        } else if (is_setting_key(key)) {
            if (auto err = apply_setting(key, value, s.transfer, s.threads)) {
                error(column, key, err->message);
                continue;
            }
            s.sweep.erase(std::remove_if(s.sweep.begin(), s.sweep.end(),
                                         [&](const auto& entry) { return entry.first == key; }),
                          s.sweep.end());
            for (auto& run : s.runs) run.overrides.erase(key);
        } else if (const std::string retired = retired_key_message(key); !retired.empty()) {
            error(1, key, retired);
        } else if (key.rfind("params.", 0) == 0 && key.size() > 7) {
            // As deep as a file's key may be: a payload's parameters are copied, written and
            // handed to Python by recursion, and 30,000 parts crashed `run` (SIGSEGV).
            if (const int depth = int(std::count(key.begin(), key.end(), '.')) + 1;
                depth > kMaxTomlDepth) {
                const std::string shown = key.size() > 40 ? key.substr(0, 40) + "..." : key;
                error(1, shown, toml_depth_message({1, 1, depth, "key"}));
                continue;
            }
            std::string why;
            if (!set_param(s.params, key.substr(7), value, why)) {
                error(1, key, why);
                continue;
            }
            // As for settings: no longer swept, and no run's own value of it stays.
            s.sweep.erase(std::remove_if(s.sweep.begin(), s.sweep.end(),
                                         [&](const auto& entry) { return entry.first == key; }),
                          s.sweep.end());
            for (auto& run : s.runs) erase_param(run.params, key.substr(7));
        } else {
            error(1, key,
                  "unknown key '" + key + "'" + did_you_mean(key, set_flag_keys()) +
                      "; --set takes " + set_tables + ", e.g. threads.count=8");
        }
    }
}

}  // namespace xfer::scenario_internal
