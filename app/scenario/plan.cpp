// Expands [[run]] x [sweep] into concrete runs, and writes them as JSON.
#include "scenario/plan.hpp"

#include <map>
#include <set>

#include "results/serialize.hpp"
#include "scenario/diagnostics.hpp"
#include "scenario/loader.hpp"
#include "scenario/scenario_keys.hpp"
#include "scenario/set_flags.hpp"
#include "scenario/trials.hpp"
#include "settings/run_settings.hpp"
#include "settings/setting_keys.hpp"
#include "util/suggest.hpp"

namespace xfer {
namespace scenario_internal {

using nlohmann::json;

size_t sweep_point_count(const Scenario& s) {
    size_t points = 1;
    for (const auto& [key, values] : s.sweep) {
        const size_t n = values.is_array() ? values.size() : 1;
        if (n != 0 && points > SIZE_MAX / n) return SIZE_MAX;
        points *= n;
    }
    return points;
}

std::optional<std::string> plan_size_problem(const Scenario& s) {
    const size_t points = sweep_point_count(s);
    const size_t runs = s.runs.size() * size_t(s.trials);
    if (runs == 0 || points <= kMaxPlanRuns / runs) return std::nullopt;
    const std::string total = points > SIZE_MAX / runs ? "more than " + std::to_string(SIZE_MAX)
                                                       : std::to_string(points * runs);
    const std::string trials = s.trials == 1 ? "" : " x " + std::to_string(s.trials) + " trials";
    return "the plan would have " + total + " runs (" + std::to_string(points) +
           " sweep points x " + std::to_string(s.runs.size()) + " [[run]] tables" + trials +
           "); the limit is " + std::to_string(kMaxPlanRuns) + ": sweep fewer values";
}

json resolved_json(const Scenario& s, const std::vector<std::string>& set_flags) {
    json j;
    j["source"] = s.source.string();
    j["scenario"] = {{"name", s.name},
                     {"description", s.description},
                     {"backend", s.backend},
                     {"timeout", timeout_text(s.timeout_ns)},
                     {"timeout_ns", s.timeout_ns},
                     {"trials", s.trials},
                     {"order", to_string(s.order)},
                     {"baseline", s.baseline}};
    if (s.seed_set) j["scenario"]["seed"] = s.seed;
    j["transfer"] = transfer_to_json(s.transfer);
    j["threads"] = threads_to_json(s.threads);
    j["staging"] = staging_to_json(s.transfer.staging);
    j["params"] = s.params;
    json runs = json::array();
    for (const auto& r : s.runs) {
        runs.push_back({{"launcher", r.launcher},
                        {"label", r.label},
                        {"payload", r.payload},
                        {"gil", to_string(r.gil)},
                        {"mimic", to_string(r.mimic)},
                        {"overrides", r.overrides},
                        {"params", r.params}});
    }
    j["run"] = runs;
    json sweep = json::array();
    for (const auto& [key, values] : s.sweep) sweep.push_back({{"key", key}, {"values", values}});
    j["sweep"] = sweep;
    j["set"] = set_flags;
    if (!s.notes.empty()) j["notes"] = s.notes;
    const size_t points = sweep_point_count(s);
    j["plan"] = {{"sweep_points", points},
                 {"runs", points * s.runs.size() * size_t(s.trials)},
                 {"trials", s.trials}};
    return j;
}

namespace {
std::string make_label(const Scenario& s, const RunSpec& spec,
                       const std::vector<std::pair<std::string, std::string>>& point);

// A value as a label shows it: strings bare ("256KiB"), anything else as JSON ("[0,1]").
std::string value_text(const json& value) {
    return value.is_string() ? value.get<std::string>() : compact_json(value);
}
}  // namespace

std::vector<std::string> base_labels(const Scenario& s) {
    std::vector<std::string> out;
    for (const RunSpec& spec : s.runs) out.push_back(make_label(s, spec, {}));
    return out;
}

std::optional<std::string> baseline_problem(const Scenario& s) {
    if (s.baseline.empty()) return std::nullopt;
    const std::vector<std::string> labels = base_labels(s);
    if (std::find(labels.begin(), labels.end(), s.baseline) != labels.end()) return std::nullopt;
    std::string names;
    for (const std::string& l : labels) names += (names.empty() ? "\"" : ", \"") + l + "\"";
    return "no [[run]] has the label \"" + s.baseline + "\"" + did_you_mean(s.baseline, labels) +
           "; the [[run]] labels are " + names;
}

namespace {

// Whether the [[run]]s with `spec`'s launcher differ in `field` (the payload, the GIL policy):
// then it tells them apart and belongs in their derived labels. A run without a payload differs
// from one with.
template <typename Field>
bool differs_within_launcher(const Scenario& s, const RunSpec& spec, Field field) {
    for (const auto& r : s.runs) {
        if (r.launcher == spec.launcher && field(r) != field(spec)) return true;
    }
    return false;
}

// A run's own params as dotted keys, sorted ({"a": {"b": 1}} gives "a.b" = 1): how its
// derived label names them, as --set and the docs write them.
std::vector<std::pair<std::string, json>> dotted_params(const json& params,
                                                        const std::string& prefix = "") {
    std::vector<std::pair<std::string, json>> out;
    for (const auto& [key, value] : params.items()) {
        if (value.is_object()) {  // an empty table merges nothing, so it names nothing
            auto inner = dotted_params(value, prefix + key + ".");
            out.insert(out.end(), inner.begin(), inner.end());
        } else {
            out.emplace_back(prefix + key, value);
        }
    }
    return out;
}

// Whether the [[run]] sets `key` itself: then the sweep does not change it, and its label does
// not repeat it.
bool run_sets(const RunSpec& spec, const std::string& key) {
    if (key.rfind("params.", 0) == 0) return has_param(spec.params, key.substr(7));
    return spec.overrides.contains(key);
}

// "python gil=release threads.stack_size=256KiB threads.count=4": the run's own label, or the
// launcher with what the run sets itself, then the sweep point's values that reached it.
std::string make_label(const Scenario& s, const RunSpec& spec,
                       const std::vector<std::pair<std::string, std::string>>& point) {
    std::string label = spec.label;
    if (label.empty()) {
        label = spec.launcher;
        // The GIL is what python and host+gil runs are about: always named. For processes and
        // ranks only when their runs differ in it.
        const LauncherTraits& traits = launcher_traits(spec.launcher);
        const auto gil = [](const RunSpec& r) { return r.gil; };
        if (gil_applies(traits, false) ||
            (traits.takes_gil && differs_within_launcher(s, spec, gil))) {
            label += " gil=" + to_string(spec.gil);
        }
        const auto payload = [](const RunSpec& r) { return r.payload; };
        if (!spec.payload.empty() && differs_within_launcher(s, spec, payload))
            label += " payload=" + spec.payload;
        if (spec.mimic != Mimic::none) label += " mimic=" + to_string(spec.mimic);
        for (const auto& [key, value] : spec.overrides.items()) {
            label += " " + key + "=" + value_text(value);
        }
        for (const auto& [key, value] : dotted_params(spec.params)) {
            label += " params." + key + "=" + value_text(value);
        }
    }
    for (const auto& [key, text] : point) {
        if (!run_sets(spec, key)) label += " " + key + "=" + text;
    }
    return label;
}

// Labels still equal after the above belong to runs that nothing in the file tells apart:
// identical [[run]] tables, or a run that overrides every swept key at each sweep point. The
// later ones get " #2", " #3", ... so that every label names one run. A label the user wrote
// (label_written[i] for plan[i]) stays as written where it first occurs (file_reader refuses
// two [[run]]s with one label).
void make_labels_distinct(std::vector<Run>& plan, const std::vector<bool>& label_written) {
    std::set<std::string> written;
    for (size_t i = 0; i < plan.size(); ++i)
        if (label_written[i]) written.insert(plan[i].position.label);
    std::set<std::string> used;
    // Where the search for a free " #n" resumes, per label: the names only ever fill up, so
    // every n below it is taken still (a sweep of 10000 runs over 8 labels searched from 2
    // each time: quadratic, 48 s under ASan).
    std::map<std::string, int> next_n;
    for (size_t i = 0; i < plan.size(); ++i) {
        std::string& label = plan[i].position.label;
        if ((label_written[i] || written.count(label) == 0) && used.insert(label).second) continue;
        int& n = next_n.try_emplace(label, 2).first->second;
        std::string candidate;
        for (;; ++n) {
            candidate = label + " #" + std::to_string(n);
            if (written.count(candidate) == 0 && used.count(candidate) == 0) break;
        }
        label = candidate;
        used.insert(candidate);
    }
}

// Everything that identifies a run except threads.count (and the free-text label), so that
// runs differing only in thread count share it.
std::string make_scaling_key(const RunSettings& run) {
    json threads = threads_to_json(run.threads);
    threads.erase("count");
    json key = {{"launcher", run.launcher},
                {"payload", run.payload},
                {"gil", to_string(run.gil)},
                {"mimic", to_string(run.mimic)},
                {"backend", run.backend},
                {"transfer", transfer_to_json(run.transfer)},
                {"threads", threads},
                {"staging", staging_to_json(run.transfer.staging)},
                {"params", run.params}};
    return compact_json(key);  // --set takes any bytes as a string value
}

void apply_or_collect(const Scenario& s, const std::string& key, const json& value,
                      RunSettings& run, std::vector<Diagnostic>& errors) {
    std::string why;
    if (key.rfind("params.", 0) == 0) {
        // A swept parameter under a [params] value that is not a table ([params] a = 1 with
        // "params.a.b" swept): found here, where the two meet.
        if (!set_param(run.params, key.substr(7), value, why)) {
            errors.push_back(Diagnostic{s.source.string(), 0, 0, key, why});
        }
    } else if (auto err = apply_setting(key, value, run.transfer, run.threads)) {
        errors.push_back(Diagnostic{s.source.string(), 0, 0, key, err->message});
    }
}

// The settings of `spec` at a sweep point: the scenario's, then the point's values, then the
// run's own keys (a run states what it isolates; --set was applied to the scenario's and
// removed from both).
RunSettings settings_at(const Scenario& s, const RunSpec& spec,
                        const std::vector<std::pair<std::string, json>>& point,
                        std::vector<Diagnostic>& errors) {
    RunSettings run;
    run.launcher = spec.launcher;
    run.payload = spec.payload;
    run.gil = spec.gil;
    run.mimic = spec.mimic;
    run.overrides = spec.overrides;
    run.backend = s.backend;
    run.timeout_ns = s.timeout_ns;
    run.params = s.params;
    run.transfer = s.transfer;
    run.threads = s.threads;
    for (const auto& [key, value] : point) apply_or_collect(s, key, value, run, errors);
    for (const auto& [key, value] : spec.overrides.items())
        apply_or_collect(s, key, value, run, errors);
    run.params.merge_patch(spec.params);
    return run;
}

// The sweep point `p` (0-based) of the plan: each key with its value there, in file order.
// Mixed radix over the sweep's value lists, the last key fastest: the first key in the file
// changes slowest, as nested loops written in file order would.
std::vector<std::pair<std::string, json>> sweep_point_at(const Scenario& s, size_t p) {
    std::vector<std::pair<std::string, json>> point(s.sweep.size());
    size_t rest = p;
    for (size_t k = s.sweep.size(); k-- > 0;) {
        const json& values = s.sweep[k].second;
        const size_t n = values.is_array() ? values.size() : 1;
        point[k] = {s.sweep[k].first, values.is_array() ? values[rest % n] : values};
        rest /= n;
    }
    return point;
}

}  // namespace
}  // namespace scenario_internal

std::vector<Run> expand_plan(const Scenario& s) {
    using namespace scenario_internal;
    if (auto problem = plan_size_problem(s)) {
        throw ScenarioError({Diagnostic{s.source.string(), 0, 0, "sweep", *problem}});
    }
    const size_t points = sweep_point_count(s);
    std::vector<Run> plan;
    std::vector<bool> label_written;
    std::vector<Diagnostic> errors;
    for (size_t p = 0; p < points; ++p) {
        const std::vector<std::pair<std::string, json>> point = sweep_point_at(s, p);
        std::vector<std::pair<std::string, std::string>> point_text;
        for (const auto& [key, value] : point) point_text.emplace_back(key, value_text(value));
        for (const RunSpec& spec : s.runs) {
            Run run;
            run.settings = settings_at(s, spec, point, errors);
            run.position.index = int(plan.size());
            for (const auto& [key, text] : point_text) run.position.sweep_point[key] = text;
            run.position.label = make_label(s, spec, point_text);
            run.position.base_label = make_label(s, spec, {});
            run.position.scaling_key = make_scaling_key(run.settings);
            plan.push_back(std::move(run));
            label_written.push_back(!spec.label.empty());
        }
    }
    if (!errors.empty()) throw ScenarioError(std::move(errors));
    make_labels_distinct(plan, label_written);
    return schedule_trials(plan, s);
}

}  // namespace xfer
