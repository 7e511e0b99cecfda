#pragma once
// Engine.stats(): what an engine did (always: copies, bytes, DMAs, pieces) and, when it measures
// (Engine(measure=True)), where its helpers' time went and a copy's edges; its settings, how its
// pageable copies go, and its share of the machine's engine registry. Called with the GIL held.
#include <pybind11/pybind11.h>

#include "module/module_engine.hpp"

namespace xfer::pyapi {

pybind11::dict engine_stats(const ModuleEngine& engine);

}  // namespace xfer::pyapi
