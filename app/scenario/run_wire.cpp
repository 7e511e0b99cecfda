#include "scenario/run_wire.hpp"

#include <stdexcept>

#include "results/serialize.hpp"

namespace xfer {

namespace {
using json = nlohmann::json;
constexpr const char* kSettings = "settings";
constexpr const char* kPosition = "position";
}  // namespace

json run_to_wire(const Run& run) { return {{kSettings, run.settings}, {kPosition, run.position}}; }

Run run_from_wire(const json& j) {
    Run run;
    j.at(kSettings).get_to(run.settings);
    // Every key is sent: a missing one is a message from another program.
    if (!run.settings.unrecorded.empty())
        throw std::runtime_error("run message: no " + *run.settings.unrecorded.begin());
    j.at(kPosition).get_to(run.position);
    if (!run.position.trials_recorded) throw std::runtime_error("run message: no trial");
    return run;
}

}  // namespace xfer
