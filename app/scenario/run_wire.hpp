#pragma once
// A Run, exactly, as JSON for a worker process (launcher "process"): {"settings": ...,
// "position": ...}. The settings travel in results' own form (settings/run_settings.hpp: every
// key from its one table, enums by name), so that a value the file reader accepts is one a
// worker reads back, and the position as results.json writes it (results/serialize.hpp);
// run_from_wire(run_to_wire(r)) == r.
#include <nlohmann/json.hpp>

#include "scenario/scenario.hpp"

namespace xfer {

nlohmann::json run_to_wire(const Run& run);
// Throws std::runtime_error (or nlohmann::json's errors) on a malformed message.
Run run_from_wire(const nlohmann::json& j);

}  // namespace xfer
