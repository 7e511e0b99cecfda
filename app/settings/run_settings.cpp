#include "settings/run_settings.hpp"

#include "settings/setting_keys.hpp"
#include "settings/value_forms.hpp"
#include "util/units.hpp"

namespace xfer {

using nlohmann::json;

namespace {

// The keys of `table` that are not `unrecorded`, written into one JSON object.
json table_json(const std::string& table, const TransferSpec& t, const ThreadSpec& th,
                const std::set<std::string>& unrecorded = {}) {
    json j = json::object();
    for (const SettingKey& k : setting_key_descriptors())
        if (k.table == table && !unrecorded.count(k.dotted())) k.write(t, th, j);
    return j;
}

// Reads `table` of `j` into the specs; keys it lacks go into `unrecorded`.
void read_table(const json& j, const std::string& table, TransferSpec& t, ThreadSpec& th,
                std::set<std::string>& unrecorded) {
    const auto it = j.find(table);
    if (it == j.end()) {
        unrecorded.insert(table);
        return;
    }
    for (const SettingKey& k : setting_key_descriptors())
        if (k.table == table && !k.read(*it, t, th)) unrecorded.insert(k.dotted());
}

// The retired [staging] options `table` still records (an older xferlab's results).
void read_retired(const json& j, std::map<std::string, json>& retired) {
    const auto table = j.find("staging");
    if (table == j.end() || !table->is_object()) return;
    for (const RetiredOption& r : retired_engine_options())
        if (const auto it = table->find(r.name); it != table->end())
            retired["staging." + r.name] = *it;
}

// j[key] into `out` when there, else `key` is unrecorded.
template <class T>
void read_value(const json& j, const char* key, T& out, std::set<std::string>& unrecorded) {
    const auto it = j.find(key);
    if (it == j.end())
        unrecorded.insert(key);
    else
        it->get_to(out);
}

}  // namespace

std::string timeout_text(int64_t ns) { return ns == 0 ? "none" : duration_text(ns); }

json transfer_to_json(const TransferSpec& t) { return table_json("transfer", t, ThreadSpec{}); }

json staging_to_json(const EngineOptions& s) {
    TransferSpec t;
    t.staging = s;
    return table_json("staging", t, ThreadSpec{});
}

json threads_to_json(const ThreadSpec& t) { return table_json("threads", TransferSpec{}, t); }

void to_json(json& j, const RunSettings& s) {
    const auto& skip = s.unrecorded;
    j = json::object();
    const auto put = [&](const char* key, json value) {
        if (!skip.count(key)) j[key] = std::move(value);
    };
    put("launcher", s.launcher);
    put("payload", s.payload);
    put("gil", to_string(s.gil));
    put("mimic", to_string(s.mimic));
    put("backend", s.backend);
    put("timeout", timeout_text(s.timeout_ns));
    put("timeout_ns", s.timeout_ns);
    for (const std::string& table : setting_tables())
        if (!skip.count(table)) j[table] = table_json(table, s.transfer, s.threads, skip);
    for (const auto& [dotted, value] : s.retired) {
        const size_t dot = dotted.find('.');
        j[dotted.substr(0, dot)][dotted.substr(dot + 1)] = value;
    }
    put("params", s.params);
    put("overrides", s.overrides);
}

void from_json(const json& j, RunSettings& s) {
    using settings_internal::enum_from;
    s = RunSettings{};
    auto& unrecorded = s.unrecorded;
    read_value(j, "launcher", s.launcher, unrecorded);
    read_value(j, "payload", s.payload, unrecorded);
    if (const auto it = j.find("gil"); it != j.end())
        s.gil = enum_from<GilPolicy>(*it, "gil");
    else
        unrecorded.insert("gil");
    if (const auto it = j.find("mimic"); it != j.end())
        s.mimic = enum_from<Mimic>(*it, "mimic");
    else
        unrecorded.insert("mimic");
    read_value(j, "backend", s.backend, unrecorded);
    // "timeout" is timeout_ns's text.
    if (!j.contains("timeout")) unrecorded.insert("timeout");
    read_value(j, "timeout_ns", s.timeout_ns, unrecorded);
    for (const std::string& table : setting_tables())
        read_table(j, table, s.transfer, s.threads, unrecorded);
    read_retired(j, s.retired);
    read_value(j, "params", s.params, unrecorded);
    read_value(j, "overrides", s.overrides, unrecorded);
}

}  // namespace xfer
