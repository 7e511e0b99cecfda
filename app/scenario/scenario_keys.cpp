#include "scenario/scenario_keys.hpp"

#include <algorithm>
#include <functional>

#include "settings/run_settings.hpp"
#include "settings/setting_keys.hpp"
#include "settings/value_checks.hpp"
#include "util/units.hpp"

namespace xfer {

using nlohmann::json;

namespace {

// The most trials a scenario takes: more is a typo, not a measurement plan.
constexpr int kMaxTrials = 1000;

// A [scenario] key: its help row and its check.
struct ScenarioKey {
    std::string name;
    std::string type;
    std::string default_value;
    std::string meaning;
    std::vector<std::string> values;
    std::function<SettingResult(const json&, Scenario&)> apply;
};

SettingResult text_key(const json& v, std::string& out) {
    if (!v.is_string()) return SettingError{"expected a string; got " + describe(v)};
    out = v.get<std::string>();
    return std::nullopt;
}

const std::vector<ScenarioKey>& scenario_key_table() {
    static const std::vector<ScenarioKey> keys = [] {
        const Scenario scenario;
        return std::vector<ScenarioKey>{
            {"name",
             "string",
             "(file name)",
             "names the output folder and the report",
             {},
             [](const json& v, Scenario& s) -> SettingResult {
                 if (v.is_string() && v.get<std::string>().empty())
                     return SettingError{"expected a non-empty name; got \"\""};
                 return text_key(v, s.name);
             }},
            {"description",
             "string",
             json(scenario.description).dump(),
             "one line, shown by xferlab list",
             {},
             [](const json& v, Scenario& s) { return text_key(v, s.description); }},
            {"backend", "string", json(scenario.backend).dump(),
             plain_list(backend_choices()) + ": what the copies run on", backend_choices(),
             [](const json& v, Scenario& s) -> SettingResult {
                 const std::vector<std::string> names = backend_choices();
                 if (!v.is_string() ||
                     std::find(names.begin(), names.end(), v.get<std::string>()) == names.end())
                     return not_one_of(v, names);
                 s.backend = v.get<std::string>();
                 return std::nullopt;
             }},
            {"timeout",
             "duration",
             json(timeout_text(scenario.timeout_ns)).dump(),
             "a run still going after this long is stopped",
             {},
             [](const json& v, Scenario& s) -> SettingResult {
                 const std::string what = "a duration such as \"30s\", or \"none\" (or \"0\")";
                 if ((v.is_number_integer() && v.get<int64_t>() == 0) ||
                     (v.is_string() && v.get<std::string>() == timeout_text(0))) {
                     s.timeout_ns = 0;
                     return std::nullopt;
                 }
                 if (!v.is_string()) return expected(what, v);
                 std::string why;
                 auto ns = parse_duration_ns(v.get<std::string>(), &why);
                 if (ns && !(why = duration_limit_problem(*ns)).empty()) ns.reset();
                 if (!ns)
                     return SettingError{"expected " + what + "; got " + describe(v) + ": " + why};
                 s.timeout_ns = *ns;
                 return std::nullopt;
             }},
            {"trials",
             "integer",
             std::to_string(scenario.trials),
             "each run is repeated this often; verdicts compare the trials (--trials)",
             {},
             [](const json& v, Scenario& s) -> SettingResult {
                 if (!v.is_number_integer() || v.get<int64_t>() < 1 ||
                     v.get<int64_t>() > kMaxTrials)
                     return expected("an integer from 1 to " + std::to_string(kMaxTrials), v);
                 s.trials = int(v.get<int64_t>());
                 return std::nullopt;
             }},
            {"order", "string", json(to_string(scenario.order)).dump(),
             plain_list(enum_choices<TrialOrder>()) + ": how the trials follow each other",
             enum_choices<TrialOrder>(),
             [](const json& v, Scenario& s) { return settings_internal::want_enum(v, s.order); }},
            {"seed",
             "integer",
             "(chosen, recorded)",
             "the shuffle of order = \"" + to_string(TrialOrder::shuffled) + "\"",
             {},
             [](const json& v, Scenario& s) -> SettingResult {
                 if (!v.is_number_integer() || v.get<int64_t>() < 0)
                     return expected("a non-negative integer", v);
                 s.seed = uint64_t(v.get<int64_t>());
                 s.seed_set = true;
                 return std::nullopt;
             }},
            {"baseline",
             "string",
             "(first [[run]])",
             "the [[run]] label every run is compared with at its sweep point",
             {},
             [](const json& v, Scenario& s) -> SettingResult {
                 if (!v.is_string() || v.get<std::string>().empty())
                     return expected("a [[run]] label", v);
                 s.baseline = v.get<std::string>();
                 return std::nullopt;
             }},
        };
    }();
    return keys;
}

// The launchers that take a [[run]] key, for its meaning: " (python, process, mpi)".
std::string taken_by(bool LauncherTraits::*trait) {
    return " (" + join_names(launchers_with(trait)) + ")";
}

ScenarioKeyDescriptor setting_descriptor(const SettingKey& k) {
    return {k.dotted(), k.type, setting_default(k), k.meaning(), k.values};
}

std::vector<ScenarioKeyDescriptor> build_descriptors() {
    std::vector<ScenarioKeyDescriptor> d;
    for (const ScenarioKey& k : scenario_key_table())
        d.push_back({"scenario." + k.name, k.type, k.default_value, k.meaning, k.values});
    for (const std::string& table : setting_tables())
        for (const SettingKey& k : setting_key_descriptors())
            if (k.table == table) d.push_back(setting_descriptor(k));
    const RunSpec run;
    const std::vector<ScenarioKeyDescriptor> rest = {
        {"params.<key>", "any", "(none)", "free-form; handed to Python payloads as ctx.params", {}},
        {"run.launcher", "string", json(run.launcher).dump(), join_names(launcher_names(), "|"),
         launcher_names()},
        {"run.label", "string", "(derived)", "names the run in reports", {}},
        {"run.payload",
         "string",
         json(run.payload).dump(),
         "a payload file" + taken_by(&LauncherTraits::takes_payload),
         {}},
        {"run.gil", "string", json(to_string(run.gil)).dump(),
         plain_list(enum_choices<GilPolicy>()) + taken_by(&LauncherTraits::takes_gil),
         enum_choices<GilPolicy>()},
        {"run.mimic", "string", json(to_string(run.mimic)).dump(),
         quoted_value(Mimic::python) + ": host threads take a Python thread's attributes",
         enum_choices<Mimic>()},
        {"run.transfer.<key>",
         "as [transfer]",
         "(scenario's)",
         "any [transfer] key, for this run only",
         {}},
        {"run.threads.<key>",
         "as [threads]",
         "(scenario's)",
         "any [threads] key, for this run only",
         {}},
        {"run.staging.<key>",
         "as [staging]",
         "(scenario's)",
         "any [staging] key, for this run only",
         {}},
        {"run.params.<key>",
         "any",
         "(scenario's)",
         "payload parameters for this run only, merged over [params]",
         {}},
        {"sweep.<key>",
         "array",
         "(none)",
         "values of a [transfer], [threads], [staging] or params key: a run each",
         {}},
    };
    d.insert(d.end(), rest.begin(), rest.end());
    return d;
}

// The second parts of the descriptors of `table` ("name" of "scenario.name"), in order and
// once each.
std::vector<std::string> keys_of(const std::string& table) {
    std::vector<std::string> keys;
    for (const auto& d : scenario_key_descriptors()) {
        if (d.key.rfind(table + ".", 0) != 0) continue;
        const std::string rest = d.key.substr(table.size() + 1);
        const std::string key = rest.substr(0, rest.find('.'));
        if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(key);
    }
    return keys;
}

}  // namespace

const std::vector<ScenarioKeyDescriptor>& scenario_key_descriptors() {
    static const std::vector<ScenarioKeyDescriptor> descriptors = build_descriptors();
    return descriptors;
}

std::vector<std::string> set_flag_keys() {
    std::vector<std::string> keys;
    for (const auto& k : scenario_internal::scenario_keys()) keys.push_back("scenario." + k);
    for (const auto& k : all_setting_keys()) keys.push_back(k);
    return keys;
}

}  // namespace xfer

namespace xfer::scenario_internal {

using nlohmann::json;

const std::vector<std::string>& scenario_keys() {
    static const std::vector<std::string> keys = keys_of("scenario");
    return keys;
}

SettingResult apply_scenario_key(const std::string& key, const json& v, Scenario& s) {
    for (const ScenarioKey& k : scenario_key_table())
        if (k.name == key) return k.apply(v, s);
    return SettingError{"unknown key"};
}

const std::vector<LauncherOnlyKey>& launcher_only_keys() {
    static const std::vector<LauncherOnlyKey> keys = {
        {"payload", &LauncherTraits::takes_payload, "runs no payload; payload is for"},
        {"params", &LauncherTraits::takes_payload, "runs no payload to read them; params are for"},
        {"gil", &LauncherTraits::takes_gil, "never touches the GIL; gil is for"},
        {"mimic", &LauncherTraits::takes_mimic, "does not create its threads itself; mimic is for",
         [](const RunSpec& r) { return r.mimic != Mimic::none; }},
    };
    return keys;
}

const std::vector<std::string>& run_keys() {
    static const std::vector<std::string> keys = keys_of("run");
    return keys;
}

}  // namespace xfer::scenario_internal
