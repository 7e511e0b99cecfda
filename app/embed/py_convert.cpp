#include "embed/py_convert.hpp"

#include "util/units.hpp"

#include "results/record_fields.hpp"
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

// The fields results.json writes, each under its name in Record (results/record_fields.cpp).
py::dict record_to_dict(const Record& r) {
    py::dict d;
    for_each_written_field(r, [&](const RecordField& f, const nlohmann::json& value) {
        d[f.name] = json_to_python(value);
    });
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
