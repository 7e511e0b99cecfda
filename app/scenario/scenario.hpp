#pragma once
// A validated scenario and the concrete runs it expands into. Every value here is resolved:
// defaults filled in, units converted. See docs/scenarios.md for the file format; the values of
// the [transfer], [staging] and [threads] keys are settings/specs.hpp's.
#include <cstdint>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "settings/vocabulary.hpp"
#include "settings/specs.hpp"

namespace xfer {

// One [[run]] entry: which launcher, and what only this run sets.
struct RunSpec {
    std::string launcher = kDefaultLauncher;  // a name of settings/vocabulary.hpp
    std::string label;    // optional; a label is derived when empty
    std::string payload;  // python payload file (launchers that take one)
    // Where `payload` was written (checked against the payload folders after loading).
    bool payload_set = false;
    int payload_line = 0;
    int payload_column = 0;
    GilPolicy gil = GilPolicy::release;
    Mimic mimic = Mimic::none;  // python: host threads take a Python thread's attributes
    nlohmann::json overrides = nlohmann::json::object();  // dotted keys set inside [[run]]
    // The run's own payload parameters: merged over [params] (RFC 7396, key by key; a table
    // merges into a table, anything else replaces).
    nlohmann::json params = nlohmann::json::object();
};

// One concrete run of the plan: a launcher with every knob resolved.
struct Run {
    int index = 0;
    std::string label;
    std::string backend;  // backend_choices(), as written; resolved when the run starts
    RunSpec spec;
    TransferSpec transfer;
    ThreadSpec threads;
    int64_t timeout_ns = 0;                            // 0: none
    nlohmann::json params = nlohmann::json::object();  // [params] for payloads (ctx.params)
    std::map<std::string, std::string> sweep_point;
    std::string scaling_key;  // runs equal but for threads.count share it
    // Trials (scenario.trials): the same run repeated; its trials share `label`. 1-based.
    int trial = 1;
    // Position in the plan of one trial ([[run]] x [sweep] order), equal for a run's trials:
    // reports list runs in this order and take the first at a sweep point as its baseline.
    int position = 0;
    // The [[run]]'s label without the sweep point's values: what scenario.baseline names.
    std::string base_label;
};

struct Scenario {
    std::filesystem::path source;  // the file it came from
    std::string name;
    std::string description;
    std::string backend = kAutoBackend;
    int64_t timeout_ns = 0;
    // Every run is run `trials` times, in `order`; a shuffled order draws from `seed` (chosen
    // when the file leaves it out, and recorded in the results). See docs/scenarios.md.
    int trials = 1;
    TrialOrder order = TrialOrder::interleaved;
    uint64_t seed = 0;
    bool seed_set = false;
    // The [[run]] label each run is compared with at its own sweep point ("": the first).
    std::string baseline;
    TransferSpec transfer;
    ThreadSpec threads;
    std::vector<RunSpec> runs;
    // [sweep]: key -> values (as TOML values rendered to JSON), in file order.
    std::vector<std::pair<std::string, nlohmann::json>> sweep;
    nlohmann::json params = nlohmann::json::object();
    // What was changed in the input to use it, one sentence each (a --set flag that was not
    // UTF-8): printed when the scenario loads and kept in the results for the report.
    std::vector<std::string> notes;
    nlohmann::json resolved;  // the whole scenario, defaults filled in, as written to results
};

}  // namespace xfer
