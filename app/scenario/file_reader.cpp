#include "scenario/file_reader.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include "settings/vocabulary.hpp"
#include "scenario/scenario_keys.hpp"
#include "scenario/set_flags.hpp"
#include "scenario/toml_support.hpp"
#include "settings/setting_keys.hpp"
#include "settings/value_checks.hpp"
#include "util/suggest.hpp"

namespace xfer::scenario_internal {

using nlohmann::json;

namespace {

const std::vector<std::string>& top_level_keys() {
    static const std::vector<std::string> keys = {"scenario", "transfer", "threads", "staging",
                                                  "params",   "run",      "sweep"};
    return keys;
}

bool is_setting_table(const std::string& k) {
    const auto& tables = setting_tables();
    return std::find(tables.begin(), tables.end(), k) != tables.end();
}

std::string comma_list(const std::vector<std::string>& names) {
    std::string s;
    for (size_t i = 0; i < names.size(); ++i) s += (i ? ", " : "") + names[i];
    return s;
}

// Where a [transfer]/[threads] key that sits in the wrong place should go.
enum class SettingHint { none, table, run_override };

// "unknown key 'x' (did you mean 'y'?); keys of [t] are a, b, c". A key that belongs to
// [transfer] or [threads] but sits elsewhere is pointed there.
std::string unknown_key_message(const std::string& key, const std::vector<std::string>& allowed,
                                const std::string& where, SettingHint hint) {
    std::string suggestion = did_you_mean(key, allowed);
    if (suggestion.empty() && hint != SettingHint::none) {
        for (const std::string& table : setting_tables()) {
            const std::string dotted = table + "." + key;
            if (!is_setting_key(dotted)) continue;
            suggestion =
                " (did you mean '" + dotted + "'? " +
                (hint == SettingHint::table ? "put it under [" + std::string(table) + "])"
                                            : "a run overrides it as " + dotted + " = ...)");
        }
    }
    return "unknown key '" + key + "'" + suggestion + "; " + where + " " + comma_list(allowed);
}

class Reader {
  public:
    Reader(const std::string& file, Scenario& s, std::vector<Diagnostic>& diags)
        : file_(file), s_(s), diags_(diags) {}

    FileFacts read(const toml::table& root) {
        FileFacts facts;
        for (const auto& [key, node] : in_file_order(root)) {
            const std::string k(key->str());
            if (k == "scenario") {
                if (auto* t = table_or_error(*node, k)) {
                    read_scenario_table(*t);
                    if (const auto* b = t->get("baseline")) facts.baseline_position = b->source();
                }
            } else if (is_setting_table(k)) {
                if (auto* t = table_or_error(*node, k)) {
                    read_settings(k, *t, k, [this](const std::string& dotted, const json& v) {
                        apply_setting(dotted, v, s_.transfer, s_.threads);
                    });
                }
            } else if (k == "params") {
                if (auto* t = table_or_error(*node, k)) s_.params = toml_to_json(*t);
            } else if (k == "run") {
                facts.has_run = true;
                read_runs(*node);
            } else if (k == "sweep") {
                if (auto* t = table_or_error(*node, k)) {
                    facts.has_sweep = true;
                    facts.sweep_position = node->source();
                    read_sweep(*t);
                }
            } else {
                error(
                    key->source(), k,
                    unknown_key_message(k, top_level_keys(), "the tables are", SettingHint::table));
            }
        }
        return facts;
    }

  private:
    void error(const toml::source_region& where, const std::string& key, const std::string& msg) {
        diags_.push_back(diagnostic_at(file_, where, key, msg));
    }

    // The position of the bad part of a value: the array element a SettingError names.
    const toml::source_region& where(const toml::node& node, const SettingError& err) {
        if (err.element >= 0) {
            if (const auto* a = node.as_array(); a && size_t(err.element) < a->size()) {
                return (*a)[size_t(err.element)].source();
            }
        }
        return node.source();
    }

    const toml::table* table_or_error(const toml::node& node, const std::string& key) {
        if (const auto* t = node.as_table()) return t;
        error(node.source(), key,
              "expected a table [" + key + "]; got " + describe(toml_to_json(node)));
        return nullptr;
    }

    void read_scenario_table(const toml::table& t) {
        for (const auto& [key, node] : in_file_order(t)) {
            const std::string k(key->str());
            const std::string dotted = "scenario." + k;
            if (std::find(scenario_keys().begin(), scenario_keys().end(), k) ==
                scenario_keys().end()) {
                error(key->source(), dotted,
                      unknown_key_message(k, scenario_keys(), "keys of [scenario] are",
                                          SettingHint::table));
                continue;
            }
            if (auto err = apply_scenario_key(k, toml_to_json(*node), s_)) {
                error(where(*node, *err), dotted, err->message);
            }
        }
    }

    // The keys of a [transfer] or [threads] table (at the top or inside a [[run]]); each valid
    // value goes to `store` as ("threads.count", 4).
    void read_settings(const std::string& table, const toml::table& t, const std::string& prefix,
                       const std::function<void(const std::string&, const json&)>& store) {
        for (const auto& [key, node] : in_file_order(t)) {
            const std::string k(key->str());
            const std::string dotted = table + "." + k;
            if (!is_setting_key(dotted)) {
                const std::string retired = retired_key_message(dotted);
                error(key->source(), prefix + "." + k,
                      !retired.empty()
                          ? retired
                          : unknown_key_message(k, setting_keys(table),
                                                "keys of [" + table + "] are", SettingHint::table));
                continue;
            }
            const json value = toml_to_json(*node);
            TransferSpec scratch_transfer = s_.transfer;
            ThreadSpec scratch_threads = s_.threads;
            if (auto err = apply_setting(dotted, value, scratch_transfer, scratch_threads)) {
                error(where(*node, *err), prefix + "." + k, err->message);
                continue;
            }
            store(dotted, value);
        }
    }

    void read_runs(const toml::node& node) {
        const auto* runs = node.as_array();
        if (!runs) {
            error(node.source(), "run",
                  "expected [[run]] tables (an array of tables); got " +
                      describe(toml_to_json(node)) +
                      (node.is_table() ? ": write [[run]], not [run]" : ""));
            return;
        }
        for (size_t i = 0; i < runs->size(); ++i) {
            const toml::node& entry = (*runs)[i];
            const std::string name = "run[" + std::to_string(i + 1) + "]";
            if (const auto* t = entry.as_table()) {
                s_.runs.push_back(read_run(*t, name));
            } else {
                error(entry.source(), name,
                      "expected a table; got " + describe(toml_to_json(entry)));
            }
        }
    }

    RunSpec read_run(const toml::table& t, const std::string& name) {
        RunSpec spec;
        const toml::node* launcher = nullptr;
        const toml::node* payload = nullptr;
        // Where each key that only some launchers take is written (launcher_only_keys).
        std::map<std::string, const toml::node*> written;
        bool launcher_ok = true;
        for (const auto& [key, node] : in_file_order(t)) {
            const std::string k(key->str());
            const std::string dotted = name + "." + k;
            const json v = toml_to_json(*node);
            if (k == "launcher") {
                launcher = node;
                const auto names = launcher_names();
                if (!v.is_string() ||
                    std::find(names.begin(), names.end(), v.get<std::string>()) == names.end()) {
                    error(node->source(), dotted, not_one_of(v, names).message);
                    launcher_ok = false;
                } else {
                    spec.launcher = v.get<std::string>();
                }
            } else if (k == "label") {
                if (!v.is_string() || v.get<std::string>().empty()) {
                    error(node->source(), dotted,
                          "expected a non-empty string; got " + describe(v));
                } else if (auto first = labels_.find(v.get<std::string>());
                           first != labels_.end()) {
                    // Reports, comparisons and error messages name runs by label.
                    error(node->source(), dotted,
                          "\"" + first->first + "\" is already the label of " + first->second +
                              ": each [[run]] needs its own label (or none, for one derived "
                              "from its settings)");
                } else {
                    spec.label = v.get<std::string>();
                    labels_.emplace(spec.label, name);
                }
            } else if (k == "payload") {
                payload = node;
                written[k] = node;
                const std::string text = v.is_string() ? v.get<std::string>() : "";
                // Empty names and NUL bytes are refused with the payload folders named, once
                // those are known (payload_diagnostics).
                const bool later = v.is_string() && (text.empty() || text.find('\0') != text.npos);
                if (!later && (text.size() < 4 || text.compare(text.size() - 3, 3, ".py") != 0)) {
                    error(node->source(), dotted,
                          "expected a Python file name in the payload directory, e.g. "
                          "\"threads.py\"; got " +
                              describe(v));
                } else {
                    spec.payload = text;
                    spec.payload_set = true;
                    spec.payload_line = int(key->source().begin.line);
                    spec.payload_column = int(key->source().begin.column);
                }
            } else if (k == "gil") {
                written[k] = node;
                if (auto err = settings_internal::want_enum(v, spec.gil))
                    error(node->source(), dotted, err->message);
            } else if (k == "mimic") {
                written[k] = node;
                if (auto err = settings_internal::want_enum(v, spec.mimic))
                    error(node->source(), dotted, err->message);
            } else if (k == "params") {
                written[k] = node;
                if (const auto* sub = node->as_table()) {
                    spec.params = toml_to_json(*sub);
                } else {
                    error(node->source(), dotted,
                          "expected payload parameters for this run, merged over [params] (a "
                          "table: params.<key> = value, or params = { <key> = value }); got " +
                              describe(v));
                }
            } else if (is_setting_table(k)) {
                const auto* sub = node->as_table();
                if (!sub) {
                    error(
                        node->source(), dotted,
                        "expected " + k + ".<key> = value overrides (a table); got " + describe(v));
                    continue;
                }
                read_settings(k, *sub, dotted, [&spec](const std::string& d, const json& value) {
                    spec.overrides[d] = value;
                });
            } else {
                error(key->source(), dotted,
                      unknown_key_message(k, run_keys(), "keys of [[run]] are",
                                          SettingHint::run_override));
            }
        }
        if (!launcher_ok) return spec;
        // Keys that the launcher would silently ignore are errors: the run would not isolate what
        // the file says it does.
        const auto& where_launcher = launcher ? launcher->source() : t.source();
        const std::string l = spec.launcher;
        const LauncherTraits& traits = launcher_traits(l);
        if (traits.needs_payload && spec.payload.empty() && !payload) {
            error(where_launcher, name + ".payload",
                  "launcher \"" + l +
                      "\" needs payload = \"<file>.py\" (a file in the payload "
                      "directory, e.g. \"threads.py\")");
        }
        for (const LauncherOnlyKey& key : launcher_only_keys()) {
            const auto at = written.find(key.name);
            if (at == written.end() || traits.*key.trait) continue;
            if (key.set_in && !key.set_in(spec)) continue;
            error(at->second->source(), name + "." + key.name,
                  "launcher \"" + l + "\" " + key.refusal + " launchers " +
                      quoted_names(launchers_with(key.trait)));
        }
        return spec;
    }

    void read_sweep(const toml::table& t) {
        // "threads.count" (a quoted key) and threads.count (a dotted key, which TOML turns into
        // a nested table) both name a setting; flatten both and keep the file's order.
        struct Item {
            std::string dotted;
            const toml::key* key;
            const toml::node* node;
        };
        std::vector<Item> items;
        // params.a.b = [...] nests as deep as the payload's parameters do.
        std::function<void(const std::string&, const toml::table&)> add_params =
            [&](const std::string& prefix, const toml::table& sub) {
                for (const auto& [k2, n2] : in_file_order(sub)) {
                    const std::string dotted = prefix + "." + std::string(k2->str());
                    if (const auto* deeper = n2->as_table()) {
                        add_params(dotted, *deeper);
                    } else {
                        items.push_back(Item{dotted, k2, n2});
                    }
                }
            };
        for (const auto& [key, node] : in_file_order(t)) {
            const std::string k(key->str());
            const auto* sub = node->as_table();
            if (sub && is_setting_table(k)) {
                for (const auto& [k2, n2] : in_file_order(*sub)) {
                    items.push_back(Item{k + "." + std::string(k2->str()), k2, n2});
                }
            } else if (sub && k == "params") {
                add_params(k, *sub);
            } else {
                items.push_back(Item{k, key, node});
            }
        }
        std::stable_sort(items.begin(), items.end(), [](const Item& a, const Item& b) {
            return before(a.key->source(), b.key->source());
        });
        std::set<std::string> seen;
        for (const auto& item : items) {
            const std::string name = "sweep." + item.dotted;
            const bool param = item.dotted.rfind("params.", 0) == 0;
            std::string why;
            json scratch = json::object();
            if (param && !set_param(scratch, item.dotted.substr(7), 0, why)) {
                error(item.key->source(), name, why);
                continue;
            }
            if (!param && !retired_key_message(item.dotted).empty()) {
                error(item.key->source(), name, retired_key_message(item.dotted));
                continue;
            }
            if (!param && !is_setting_key(item.dotted)) {
                error(item.key->source(), name,
                      "unknown key '" + item.dotted + "'" +
                          did_you_mean(item.dotted, all_setting_keys()) +
                          "; a sweep varies [transfer], [threads] and [staging] keys and "
                          "params.<key>, e.g. \"threads.count\" = [1, 2, 4]");
                continue;
            }
            if (!seen.insert(item.dotted).second) {
                error(item.key->source(), name, "swept twice; give each key one list of values");
                continue;
            }
            const auto* values = item.node->as_array();
            if (!values) {
                error(item.node->source(), name,
                      "expected an array of values to sweep, e.g. [1, 2, 4]; got " +
                          describe(toml_to_json(*item.node)));
                continue;
            }
            if (values->empty()) {
                error(item.node->source(), name,
                      "an empty sweep runs nothing: give at least one value");
                continue;
            }
            bool ok = true;
            // Payload parameters are free-form (the payload reads them); settings are checked.
            for (const auto& element : *values) {
                if (param) break;
                TransferSpec scratch_transfer = s_.transfer;
                ThreadSpec scratch_threads = s_.threads;
                if (auto err = apply_setting(item.dotted, toml_to_json(element), scratch_transfer,
                                             scratch_threads)) {
                    error(where(element, *err), name, err->message);
                    ok = false;
                }
            }
            if (ok) s_.sweep.emplace_back(item.dotted, toml_to_json(*values));
        }
    }

    const std::string& file_;
    Scenario& s_;
    std::vector<Diagnostic>& diags_;
    std::map<std::string, std::string> labels_;  // a [[run]]'s label -> "run[N]" that has it
};

}  // namespace

FileFacts read_scenario_file(const toml::table& root, const std::string& file, Scenario& s,
                             std::vector<Diagnostic>& diagnostics) {
    return Reader(file, s, diagnostics).read(root);
}

}  // namespace xfer::scenario_internal
