#include "scenario/run_wire.hpp"

#include <stdexcept>

#include "scenario/loader.hpp"

namespace xfer {

namespace {
using json = nlohmann::json;
constexpr const char* kSettings = "settings";
constexpr const char* kSpecLabel = "spec_label";
}  // namespace

json run_to_wire(const Run& run) {
    return {{kSettings, run_settings(run)}, {kSpecLabel, run.spec.label}};
}

Run run_from_wire(const json& j) {
    const RunSettings s = j.at(kSettings).get<RunSettings>();
    // Every key is sent: a missing one is a message from another program.
    if (!s.unrecorded.empty())
        throw std::runtime_error("run message: no " + *s.unrecorded.begin());
    Run run;
    run.index = s.index;
    run.label = s.label;
    run.backend = s.backend;
    run.spec.launcher = s.launcher;
    run.spec.label = j.at(kSpecLabel).get<std::string>();
    run.spec.payload = s.payload;
    run.spec.gil = s.gil;
    run.spec.mimic = s.mimic;
    run.spec.overrides = s.overrides;
    run.transfer = s.transfer;
    run.threads = s.threads;
    run.timeout_ns = s.timeout_ns;
    run.params = s.params;
    run.sweep_point = s.sweep_point;
    run.scaling_key = s.scaling_key;
    run.trial = s.trial.value_or(1);
    run.position = s.position.value_or(0);
    run.base_label = s.base_label.value_or("");
    return run;
}

}  // namespace xfer
