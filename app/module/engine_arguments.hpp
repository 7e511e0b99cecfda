#pragma once
// xferlab.Engine's keyword arguments, one per row of the engine's option table
// (settings/engine_options.hpp): a Python value is taken as the JSON value a scenario file would
// write, checked by the row's own parse, so Engine(chunk="1MiB") and [staging] chunk = "1MiB"
// accept, refuse and default alike. Called with the GIL held.
#include <pybind11/pybind11.h>

#include <string>

#include "engine/engine_resolve.hpp"
#include "settings/engine_options.hpp"

namespace xfer::pyapi {

// EngineOptions from Engine(**kwargs). Throws TypeError for a name that is no option (naming
// the closest) or a value of no JSON kind, ValueError with the row's message for a refused one.
EngineOptions engine_options(const pybind11::kwargs& kwargs);

// Every option's default beside what an engine resolved as `r` (the default options on a
// device) uses for it, and the rule that made it of "auto": {"chunk": {"default": "auto",
// "value": 1048576, "rule": "auto: 1 MiB; ..."}, "streams": {"default": "one", "value": "one",
// "rule": None}, ...}. Throws std::logic_error for an option it has no value of (a new row).
pybind11::dict engine_option_defaults(const ResolvedEngine& r);
// The options as given to an engine, recorded: {"threads": 4, "chunk": "1 MiB", ...}.
pybind11::dict engine_options_dict(const EngineOptions& options);

// "Engine(device=0, *, threads=\"auto\", ...)" and a line per option: Engine's docstring.
std::string engine_signature_doc();

}  // namespace xfer::pyapi
