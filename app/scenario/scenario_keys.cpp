#include "scenario/scenario_keys.hpp"

#include <algorithm>

#include "scenario/unit_parse.hpp"
#include "results/vocabulary.hpp"

namespace xfer::scenario_internal {

using nlohmann::json;

const std::vector<std::string>& scenario_keys() {
    static const std::vector<std::string> keys = {"name", "description", "backend", "timeout"};
    return keys;
}

SettingResult apply_scenario_key(const std::string& key, const json& v, Scenario& s) {
    if (key == "name" || key == "description") {
        if (!v.is_string()) return SettingError{"expected a string; got " + describe(v)};
        if (key == "name" && v.get<std::string>().empty()) {
            return SettingError{"expected a non-empty name; got \"\""};
        }
        (key == "name" ? s.name : s.description) = v.get<std::string>();
        return std::nullopt;
    }
    if (key == "backend") {
        static const std::vector<std::string> names = backend_choices();
        if (!v.is_string() ||
            std::find(names.begin(), names.end(), v.get<std::string>()) == names.end()) {
            return not_one_of(v, names);
        }
        s.backend = v.get<std::string>();
        return std::nullopt;
    }
    if (key == "timeout") {
        const std::string what = "a duration such as \"30s\", or \"none\" (or \"0\")";
        if (v.is_number_integer() && v.get<int64_t>() == 0) {
            s.timeout_ns = 0;
            return std::nullopt;
        }
        if (!v.is_string()) return SettingError{"expected " + what + "; got " + describe(v)};
        if (v.get<std::string>() == "none") {
            s.timeout_ns = 0;
            return std::nullopt;
        }
        std::string why;
        auto ns = parse_duration_ns(v.get<std::string>(), &why);
        if (!ns) return SettingError{"expected " + what + "; got " + describe(v) + ": " + why};
        s.timeout_ns = *ns;
        return std::nullopt;
    }
    return SettingError{"unknown key"};
}

const std::vector<std::string>& run_keys() {
    static const std::vector<std::string> keys = {"launcher", "label",    "payload", "gil",
                                                  "mimic",    "transfer", "threads",  "staging"};
    return keys;
}

bool launcher_takes_payload(const std::string& l) {
    const auto* d = find_launcher(l);
    return d && d->takes_payload;
}

bool launcher_needs_payload(const std::string& l) {
    const auto* d = find_launcher(l);
    return d && d->needs_payload;
}

bool launcher_takes_gil(const std::string& l) {
    const auto* d = find_launcher(l);
    return d && d->takes_gil;
}

bool launcher_takes_mimic(const std::string& l) {
    const auto* d = find_launcher(l);
    return d && d->takes_mimic;
}

std::string timeout_text(int64_t ns) { return ns == 0 ? "none" : duration_text(ns); }

}  // namespace xfer::scenario_internal
