#pragma once
// Values handed to payloads as plain Python objects (dicts, lists, numbers): what they print
// and compare without knowing any xferlab type. Call with the GIL held.
#include <pybind11/pybind11.h>

#include <nlohmann/json.hpp>

#include "results/record.hpp"
#include "system/thread_info.hpp"

namespace xfer {

pybind11::object json_to_python(const nlohmann::json& value);
// Keys are ThreadInfo's field names; blocked_signals also as names ("signal_names").
pybind11::dict thread_info_to_dict(const ThreadInfo& info);
// Keys are Record's field names, values as results.json writes them, the same fields present
// (results/record_fields.hpp; durations in ns, host clock).
pybind11::dict record_to_dict(const Record& record);
// A byte count from Python: an int >= 0 or a size string ("64MiB"); ValueError naming `what`.
uint64_t size_argument(const pybind11::object& value, const char* what);

}  // namespace xfer
