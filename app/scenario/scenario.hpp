#pragma once
// A validated scenario and the concrete runs it expands into. Every value here is resolved:
// defaults filled in, units converted. See docs/scenarios.md for the file format; the values of
// the [transfer], [staging] and [threads] keys are settings/specs.hpp's.
#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "results/run_position.hpp"
#include "settings/run_settings.hpp"
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

// One concrete run of the plan: what it runs with, every knob resolved, and where it sits in the
// plan. A RunResult starts with both (run/plan/run_header.cpp), and a worker process gets both
// (run_wire.hpp).
struct Run {
    // launcher, payload, gil, mimic, overrides: its RunSpec's; backend as written (resolved
    // when the run starts); [params] merged with the run's own; transfer and threads after the
    // sweep point and the run's own keys.
    RunSettings settings;
    RunPosition position;

    bool operator==(const Run&) const = default;
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
