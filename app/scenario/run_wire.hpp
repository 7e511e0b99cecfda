#pragma once
// A Run, exactly, as JSON for another process (worker processes, MPI ranks). Unlike to_json(Run)
// (the readable form written into results), this keeps every field bit for bit and reads back:
// run_from_wire(run_to_wire(r)) == r.
#include <nlohmann/json.hpp>

#include "scenario/scenario.hpp"

namespace xfer {

nlohmann::json run_to_wire(const Run& run);
// Throws std::runtime_error (or nlohmann::json's errors) on a malformed message.
Run run_from_wire(const nlohmann::json& j);

}  // namespace xfer
