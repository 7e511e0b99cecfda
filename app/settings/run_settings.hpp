#pragma once
// What one run ran with, every default filled in: a run's "settings" in results.json, and the
// typed form the report reads (RunResult::settings). Written and read at the file's edge only
// (to_json/from_json here); everything else uses the fields. Where the run sits in its plan
// (index, label, trial, sweep point, ...) is not a setting: results/run_position.hpp.
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "settings/specs.hpp"

namespace xfer {

struct RunSettings {
    std::string launcher;  // a name of settings/vocabulary.hpp
    std::string payload;   // the Python payload file, "" for none
    GilPolicy gil = GilPolicy::release;
    Mimic mimic = Mimic::none;
    std::string backend =
        "auto";  // as the scenario writes it (RunResult::backend_used: the one used)
    int64_t timeout_ns = 0;        // 0: none
    TransferSpec transfer;
    ThreadSpec threads;
    nlohmann::json params = nlohmann::json::object();     // payload parameters, [params] merged
    nlohmann::json overrides = nlohmann::json::object();  // the dotted keys its [[run]] set
    // Keys that results written by an older xferlab lack ("transfer.context", "staging" for a
    // whole table): their defaults stand in here, which is what ran before the key existed,
    // and writing the results back leaves them out again.
    std::set<std::string> unrecorded;
    // Keys this xferlab no longer has, as an older one recorded them ("staging.taper": true;
    // settings/engine_options.hpp's retired options): the report still shows them, and writing
    // the results back keeps them.
    std::map<std::string, nlohmann::json> retired;

    bool operator==(const RunSettings&) const = default;
};

// "none" for 0, else an exact duration ("30 s"): the text of scenario.timeout.
std::string timeout_text(int64_t ns);

// The file's form: {"launcher": ..., "transfer": {...}, "threads": {...}, "staging": {...}, ...}.
// from_json reads what any xferlab wrote (a missing key: its default, in `unrecorded`); it
// throws std::runtime_error or nlohmann's errors for a value no xferlab writes.
void to_json(nlohmann::json& j, const RunSettings& s);
void from_json(const nlohmann::json& j, RunSettings& s);

// One table of settings in the file's form, every key (settings/setting_keys.hpp).
nlohmann::json transfer_to_json(const TransferSpec& t);  // [transfer]: without [staging]
nlohmann::json staging_to_json(const EngineOptions& s);
nlohmann::json threads_to_json(const ThreadSpec& t);

}  // namespace xfer
