#include "embed/py_convert.hpp"

#include "util/units.hpp"

#include "results/serialize.hpp"
#include "system/signal_names.hpp"

#include <pybind11/stl.h>

namespace py = pybind11;

namespace xfer {

py::object json_to_python(const nlohmann::json& value) {
    switch (value.type()) {
        case nlohmann::json::value_t::null:
            return py::none();
        case nlohmann::json::value_t::boolean:
            return py::bool_(value.get<bool>());
        case nlohmann::json::value_t::number_integer:
            return py::int_(value.get<int64_t>());
        case nlohmann::json::value_t::number_unsigned:
            return py::int_(value.get<uint64_t>());
        case nlohmann::json::value_t::number_float:
            return py::float_(value.get<double>());
        case nlohmann::json::value_t::string:
            return py::str(value.get<std::string>());
        case nlohmann::json::value_t::array: {
            py::list out;
            for (const auto& v : value) out.append(json_to_python(v));
            return out;
        }
        case nlohmann::json::value_t::object: {
            py::dict out;
            for (const auto& [k, v] : value.items()) out[py::str(k)] = json_to_python(v);
            return out;
        }
        default:
            return py::none();  // binary, discarded: not produced by the loader
    }
}

py::dict thread_info_to_dict(const ThreadInfo& info) {
    // The same keys as results.json (results/serialize.cpp), plus the signals' names.
    py::dict d = json_to_python(nlohmann::json(info)).cast<py::dict>();
    py::list names;
    for (int s : info.blocked_signals) names.append(signal_name(s));
    d["signal_names"] = names;
    return d;
}

py::dict record_to_dict(const Record& r) {
    py::dict d;
    d["run"] = r.run;
    d["worker"] = r.worker;
    d["repetition"] = r.repetition;
    d["warmup"] = r.warmup;
    d["device"] = r.device;
    d["bytes"] = r.bytes;
    d["host_start_ns"] = r.host_start_ns;
    d["host_end_ns"] = r.host_end_ns;
    d["device_start_ns"] = r.device_start_ns;
    d["device_end_ns"] = r.device_end_ns;
    d["device_timing"] = to_string(r.device_timing);
    d["tid"] = r.tid;
    d["cpu"] = r.cpu;
    d["pid"] = r.pid;
    d["between_ns"] = r.between_ns;
    if (r.foreign()) {  // a w.timed() block; its label is the run's copy_sources[source - 1]
        d["source"] = r.source;
        d["device_calls"] = r.device_calls;
        d["gil_held_calls"] = r.gil_held_calls;
        d["failed"] = r.failed;
    }
    if (!r.gap.empty()) d["gap"] = json_to_python(gap_json(r.gap));
    return d;
}

uint64_t size_argument(const py::object& value, const char* what) {
    if (py::isinstance<py::str>(value)) {
        auto text = value.cast<std::string>();
        if (auto bytes = parse_size(text)) return *bytes;
        throw py::value_error(std::string(what) + " '" + text +
                              "': not a size (e.g. 4096, \"64MiB\")");
    }
    auto n = value.cast<int64_t>();
    if (n < 0) throw py::value_error(std::string(what) + " must not be negative");
    return uint64_t(n);
}

}  // namespace xfer
