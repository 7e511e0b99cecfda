#pragma once
// A Run, exactly, as JSON for a worker process (launcher "process"). The settings travel in
// results' own form (settings/run_settings.hpp: every key from its one table, enums by name),
// so that a value the file reader accepts is one a worker reads back, and
// run_from_wire(run_to_wire(r)) == r but for where the file wrote the payload (payload_set,
// payload_line, payload_column) and the [[run]]'s own params (merged into params).
#include <nlohmann/json.hpp>

#include "scenario/scenario.hpp"

namespace xfer {

nlohmann::json run_to_wire(const Run& run);
// Throws std::runtime_error (or nlohmann::json's errors) on a malformed message.
Run run_from_wire(const nlohmann::json& j);

}  // namespace xfer
