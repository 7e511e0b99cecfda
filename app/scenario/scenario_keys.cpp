#include "scenario/scenario_keys.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>

#include "results/vocabulary.hpp"
#include "scenario/trials.hpp"
#include "scenario/unit_parse.hpp"

namespace xfer {

using nlohmann::json;

namespace {

using scenario_internal::setting_keys;

// Type and meaning of each [transfer] and [threads] key; which keys there are, and in which
// order, is the validators' business (scenario/settings.cpp).
const std::map<std::string, std::pair<std::string, std::string>>& setting_texts() {
    static const std::map<std::string, std::pair<std::string, std::string>> texts = {
        {"transfer.direction", {"string", "h2d, d2h, d2d (within a device), h2h or p2p"}},
        {"transfer.bytes", {"size or integer", "bytes per copy, at least 1"}},
        {"transfer.host_memory",
         {"string", "pageable, hugepage, pinned, registered, write-combined or numa:<node>"}},
        {"transfer.first_touch",
         {"string", "which thread first writes the host buffers: worker, main or none"}},
        {"transfer.devices",
         {"string or array", "\"round-robin\", or device indices: worker i on devices[i % len]"}},
        {"transfer.api", {"string", "sync (cudaMemcpy) or async (cudaMemcpyAsync, then sync)"}},
        {"transfer.stream", {"string", "legacy, per-thread or non-blocking (api = \"async\")"}},
        {"transfer.timing", {"string", "where device times come from: auto, host, events, cupti"}},
        {"transfer.context",
         {"string", "CUDA context: primary (shared by the process) or per-worker"}},
        {"transfer.path",
         {"string", "driver, staged or register: how h2d/d2h bytes reach the DMA engine"}},
        {"transfer.repetitions", {"integer", "timed copies per worker, at least 1"}},
        {"transfer.warmup", {"integer", "untimed copies per worker before the timed ones"}},
        {"transfer.verify", {"boolean", "check every copied byte after the run"}},
        {"threads.count", {"integer", "workers, 1..4096"}},
        {"threads.start", {"string", "barrier, free or staggered:<duration>"}},
        {"threads.stack_size", {"string or integer", "\"default\" or a size of at least 16 KiB"}},
        {"threads.signal_mask",
         {"string or array", "inherit, block-all, unblock-all, or signal names to block"}},
        {"threads.affinity",
         {"string or array", "none, compact, scatter, gpu-local, or CPU numbers"}},
        {"threads.policy", {"string", "other, batch, idle, fifo:<prio> or rr:<prio> (1..99)"}},
        {"threads.between",
         {"string", "between copies: none, yield, sleep:<duration> or spin:<duration>"}},
        {"staging.threads", {"integer or \"auto\"", "helper threads of a device's staging engine"}},
        {"staging.chunk", {"size or \"auto\"", "bytes per staged chunk, at least 4 KiB"}},
        {"staging.buffers", {"integer", "page-locked chunk buffers per helper, 1..64"}},
        {"staging.affinity", {"string", "helpers on the device's local CPUs (gpu-local) or none"}},
        {"staging.stores",
         {"string", "helpers' stores into the copy's destination: auto, cached or streaming"}},
        {"staging.taper",
         {"bool", "smaller first and last chunks: the pipeline fills and drains faster"}},
        {"staging.streams",
         {"string", "streams of the helpers' DMAs: per-helper, or one per engine (in order)"}},
        {"staging.wait", {"string", "how a helper waits for its DMA: spin or block"}},
    };
    return texts;
}

// A [transfer] or [threads] key's default as the file writes it, from the specs' own defaults.
std::string setting_default(const std::string& table, const std::string& key) {
    const json j = table == "transfer"  ? scenario_internal::transfer_to_json(TransferSpec{})
                   : table == "staging" ? scenario_internal::staging_to_json(StagingSpec{})
                                        : scenario_internal::threads_to_json(ThreadSpec{});
    const auto text = j.find(key + "_text");  // "64 MiB" rather than 67108864
    return (text != j.end() ? *text : j.at(key)).dump();
}

std::vector<ScenarioKeyDescriptor> setting_descriptors(const std::string& table) {
    std::vector<ScenarioKeyDescriptor> out;
    for (const auto& k : setting_keys(table)) {
        const std::string dotted = table + "." + k;
        const auto text = setting_texts().find(dotted);
        if (text == setting_texts().end())
            throw std::logic_error("scenario key " + dotted + " has no description");
        out.push_back({dotted, text->second.first, setting_default(table, k), text->second.second});
    }
    return out;
}

std::vector<ScenarioKeyDescriptor> build_descriptors() {
    const Scenario scenario;
    const RunSpec run;
    std::vector<ScenarioKeyDescriptor> d = {
        {"scenario.name", "string", "(file name)", "names the output folder and the report"},
        {"scenario.description", "string", json(scenario.description).dump(),
         "one line, shown by xferlab list"},
        {"scenario.backend", "string", json(scenario.backend).dump(),
         join_names(backend_choices(), ", ") + ": what the copies run on"},
        {"scenario.timeout", "duration", json(scenario_internal::timeout_text(0)).dump(),
         "a run still going after this long is stopped"},
        {"scenario.trials", "integer", std::to_string(scenario.trials),
         "each run is repeated this often; verdicts compare the trials (--trials)"},
        {"scenario.order", "string", json(to_string(scenario.order)).dump(),
         "interleaved, shuffled or grouped: how the trials follow each other"},
        {"scenario.seed", "integer", "(chosen, recorded)", "the shuffle of order = \"shuffled\""},
        {"scenario.baseline", "string", "(first [[run]])",
         "the [[run]] label every run is compared with at its sweep point"},
    };
    for (const std::string& table : scenario_internal::setting_tables()) {
        auto settings = setting_descriptors(table);
        d.insert(d.end(), settings.begin(), settings.end());
    }
    std::vector<ScenarioKeyDescriptor> rest = {
        {"params.<key>", "any", "(none)", "free-form; handed to Python payloads as ctx.params"},
        {"run.launcher", "string", json(run.launcher).dump(), join_names(launcher_names(), ", ")},
        {"run.label", "string", "(derived)", "names the run in reports"},
        {"run.payload", "string", json(run.payload).dump(),
         "a .py file in a payload folder (python; process, mpi)"},
        {"run.gil", "string", json(to_string(run.gil)).dump(),
         "release or hold (python, host+gil; process, mpi)"},
        {"run.mimic", "string", json(run.mimic).dump(),
         "\"python\": host threads take a Python thread's attributes"},
        {"run.transfer.<key>", "as [transfer]", "(scenario's)",
         "any [transfer] key, for this run only"},
        {"run.threads.<key>", "as [threads]", "(scenario's)",
         "any [threads] key, for this run only"},
        {"run.staging.<key>", "as [staging]", "(scenario's)",
         "any [staging] key, for this run only"},
        {"run.params.<key>", "any", "(scenario's)",
         "payload parameters for this run only, merged over [params]"},
        {"sweep.<key>", "array", "(none)",
         "values of a [transfer], [threads], [staging] or params key: a run each"},
    };
    d.insert(d.end(), rest.begin(), rest.end());
    if (d.size() != 8 + setting_texts().size() + rest.size())  // a text without its validator
        throw std::logic_error("a [transfer], [threads] or [staging] description names no key");
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
    for (const auto& k : scenario_internal::all_setting_keys()) keys.push_back(k);
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
    if (auto handled = apply_trial_key(key, v, s)) return *handled;
    return SettingError{"unknown key"};
}

const std::vector<std::string>& run_keys() {
    static const std::vector<std::string> keys = keys_of("run");
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
