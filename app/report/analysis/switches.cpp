#include "report/analysis/switches.hpp"

#include <nlohmann/json.hpp>

namespace xfer {

using nlohmann::json;

namespace {

json parse_key(const std::string& text) {
    return text.empty() ? json() : json::parse(text, nullptr, /*allow_exceptions=*/false);
}

// Every dotted path where `a` and `b` differ, recursing into objects present in both.
void collect_differences(const json& a, const json& b, const std::string& prefix,
                         std::set<std::string>& out) {
    if (a.is_object() && b.is_object()) {
        std::set<std::string> keys;
        for (const auto& [k, v] : a.items()) keys.insert(k);
        for (const auto& [k, v] : b.items()) keys.insert(k);
        for (const auto& k : keys) {
            const std::string path = prefix.empty() ? k : prefix + "." + k;
            const auto ia = a.find(k), ib = b.find(k);
            if (ia == a.end() || ib == b.end())
                out.insert(path);
            else
                collect_differences(*ia, *ib, path, out);
        }
        return;
    }
    if (a != b) out.insert(prefix);
}

}  // namespace

// For compare's warnings: the keys by name, as the files wrote them (the files of two builds
// may not share one settings struct).
std::optional<std::set<std::string>> scaling_key_differences(const RunResult& a,
                                                             const RunResult& b) {
    const json ka = parse_key(a.position.scaling_key), kb = parse_key(b.position.scaling_key);
    if (!ka.is_object() || !kb.is_object()) return std::nullopt;
    std::set<std::string> out;
    collect_differences(ka, kb, "", out);
    return out;
}

RunSettings identifying_settings(const RunSettings& s) {
    RunSettings out = s;
    const RunSettings none;
    out.timeout_ns = none.timeout_ns;
    out.overrides = none.overrides;
    out.unrecorded = none.unrecorded;
    out.threads.count = none.threads.count;
    return out;
}

}  // namespace xfer
