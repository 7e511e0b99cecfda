#include "report/switches.hpp"

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

bool under(const std::string& path, const std::string& key) {
    return path == key || path.rfind(key + ".", 0) == 0 ||
           (path.rfind(key, 0) == 0 && path.size() > key.size() && path[key.size()] == '_');
}

}  // namespace

std::optional<std::set<std::string>> setting_differences(const RunResult& a, const RunResult& b) {
    if (a.threads != b.threads) return std::nullopt;
    return scaling_key_differences(a, b);
}

std::optional<std::set<std::string>> scaling_key_differences(const RunResult& a,
                                                             const RunResult& b) {
    const json ka = parse_key(a.scaling_key), kb = parse_key(b.scaling_key);
    if (!ka.is_object() || !kb.is_object()) return std::nullopt;
    std::set<std::string> out;
    collect_differences(ka, kb, "", out);
    return out;
}

bool differ_only_in(const RunResult& a, const RunResult& b, const std::string& key) {
    const auto diff = setting_differences(a, b);
    if (!diff || diff->empty()) return false;
    for (const auto& path : *diff)
        if (!under(path, key)) return false;
    return true;
}

std::vector<size_t> switched_runs(const Results& results, size_t run, const std::string& key) {
    std::vector<size_t> out;
    const RunResult& r = results.runs[run];
    for (size_t i = 0; i < results.runs.size(); ++i)
        if (i != run && results.runs[i].trial == r.trial && differ_only_in(r, results.runs[i], key))
            out.push_back(i);
    return out;
}

std::string setting_text(const RunResult& run, const std::string& key) {
    const json* at = &run.settings;
    size_t begin = 0;
    while (begin <= key.size()) {
        const size_t dot = key.find('.', begin);
        const std::string part = key.substr(begin, dot == std::string::npos ? dot : dot - begin);
        if (!at->is_object()) return "";
        const auto it = at->find(part);
        if (it == at->end()) return "";
        at = &*it;
        if (dot == std::string::npos) break;
        begin = dot + 1;
    }
    return at->is_string() ? at->get<std::string>() : at->dump();
}

}  // namespace xfer
