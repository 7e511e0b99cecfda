#include "python/py_convert.hpp"

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
    py::dict d;
    d["launcher"] = info.launcher;
    d["worker"] = info.worker;
    d["pid"] = info.pid;
    d["tid"] = info.tid;
    d["name"] = info.name;
    d["hostname"] = info.hostname;
    d["stack_size"] = info.stack_size;
    d["guard_size"] = info.guard_size;
    d["blocked_signals"] = py::cast(info.blocked_signals);
    py::list names;
    for (int s : info.blocked_signals) names.append(signal_name(s));
    d["signal_names"] = names;
    d["cpus"] = py::cast(info.cpus);
    d["policy"] = info.policy;
    d["priority"] = info.priority;
    d["nice"] = info.nice;
    d["numa_node"] = info.numa_node;
    d["python_thread"] = info.python_thread;
    d["gil_held"] = info.gil_held ? py::object(py::bool_(*info.gil_held)) : py::object(py::none());
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
    return d;
}

}  // namespace xfer
