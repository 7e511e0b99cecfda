#include "module/engine_arguments.hpp"

#include <fmt/format.h>

#include <stdexcept>
#include <vector>

#include "util/suggest.hpp"

namespace py = pybind11;
using nlohmann::json;

namespace xfer::pyapi {

namespace {

// A Python argument as the JSON value a scenario file would hold; nullopt for other kinds.
std::optional<json> as_json(const py::handle& v) {
    if (py::isinstance<py::bool_>(v)) return json(v.cast<bool>());  // before int: bool is one
    if (py::isinstance<py::int_>(v)) {
        const py::int_ n = py::reinterpret_borrow<py::int_>(v);
        if (n < py::int_(0)) return json(v.cast<int64_t>());
        return json(v.cast<uint64_t>());
    }
    if (py::isinstance<py::float_>(v)) return json(v.cast<double>());
    if (py::isinstance<py::str>(v)) return json(v.cast<std::string>());
    if (py::isinstance<py::list>(v) || py::isinstance<py::tuple>(v)) {
        json out = json::array();
        for (const py::handle& item : v) {
            auto j = as_json(item);
            if (!j) return std::nullopt;
            out.push_back(*j);
        }
        return out;
    }
    return std::nullopt;
}

py::object as_python(const json& v) {
    switch (v.type()) {
        case json::value_t::boolean:
            return py::bool_(v.get<bool>());
        case json::value_t::number_unsigned:
            return py::int_(v.get<uint64_t>());
        case json::value_t::number_integer:
            return py::int_(v.get<int64_t>());
        case json::value_t::number_float:
            return py::float_(v.get<double>());
        case json::value_t::string:
            return py::str(v.get<std::string>());
        case json::value_t::array: {
            py::list out;
            for (const json& item : v) out.append(as_python(item));
            return std::move(out);
        }
        case json::value_t::object: {
            py::dict out;
            for (const auto& [key, item] : v.items()) out[py::str(key)] = as_python(item);
            return std::move(out);
        }
        default:
            return py::none();
    }
}

std::vector<std::string> option_names() {
    std::vector<std::string> names;
    for (const auto& row : engine_option_rows()) names.push_back(row.name);
    return names;
}

}  // namespace

EngineOptions engine_options(const py::kwargs& kwargs) {
    EngineOptions options;
    for (const auto& [key, value] : kwargs) {
        const std::string name = key.cast<std::string>();
        const EngineOptionRow* row = find_engine_option(name);
        for (const RetiredOption& r : retired_engine_options())
            if (!row && name == r.name) throw py::type_error(fmt::format("{} was {}", name, r.why));
        if (!row)
            throw py::type_error(fmt::format("Engine() got an unexpected keyword argument '{}'{}",
                                             name, did_you_mean(name, option_names())));
        const std::optional<json> v = as_json(value);
        if (!v)
            throw py::type_error(fmt::format(
                "{}: {} ({}) is not a value it takes: {}", name,
                py::repr(value).cast<std::string>(),
                py::type::handle_of(value).attr("__name__").cast<std::string>(), row->type));
        if (auto err = row->parse(*v, options))
            throw py::value_error(fmt::format("{}: {}", name, err->message));
    }
    return options;
}

py::dict engine_option_defaults(const ResolvedEngine& r) {
    const StagingConfig& c = r.config;
    // What the engine uses for each option, as its stats() reports it (module/engine_stats.cpp).
    const json used = {
        {"threads", c.threads},
        {"chunk", c.chunk},
        {"buffers", c.buffers},
        {"dma", staging_shares_buffers(c) ? json(c.dma_chunk) : json("chunk")},
        {"affinity", c.cpus},
        {"streams", to_string(r.streams)},
        {"wait", to_string(r.wait)},
        {"mapped_files", c.read_mapped_files ? "read" : "copy"},
        {"start", c.caller_starts ? "caller" : "helpers"},
        {"lock", c.lock_spin_ns > 0 ? "spin" : "block"},
        {"direct_below",
         {{"to_device", r.direct_below_to_device}, {"from_device", r.direct_below_from_device}}},
        {"pageable", r.pageable_direct ? "direct" : "staged"},
        {"wake", c.expect_spin_ns > 0 ? "call" : "arrival"},
        {"measure", r.measure}};
    py::dict out;
    for (const auto& row : engine_option_rows()) {
        const auto it = used.find(row.name);
        if (it == used.end())
            throw std::logic_error("Engine.defaults(): no value for the option " + row.name);
        out[py::str(row.name)] =
            py::dict(py::arg("default") = as_python(engine_option_default(row)),
                     py::arg("value") = as_python(*it),
                     py::arg("rule") =
                         row.rule.empty() ? py::object(py::none()) : py::object(py::str(row.rule)));
    }
    return out;
}

py::dict engine_options_dict(const EngineOptions& options) {
    json table = json::object();
    for (const auto& row : engine_option_rows()) row.write(options, table);
    py::dict out;
    for (const auto& row : engine_option_rows())
        out[py::str(row.name)] = as_python(table[row.name]);
    return out;
}

std::string engine_signature_doc() {
    std::string args, lines;
    for (const auto& row : engine_option_rows()) {
        const std::string value =
            py::repr(as_python(engine_option_default(row))).cast<std::string>();
        args += fmt::format(", {}={}", row.name, value);
        lines += fmt::format("\n  {} ({}): {}", row.name, row.type, row.meaning());
    }
    return fmt::format(
        "Engine(device=0, *{})\n\nA staging engine: helper threads that copy between pageable "
        "host memory and one device through page-locked buffers, at the rate of copies from "
        "page-locked memory. xferlab.copy shares one per device; make your own to choose its "
        "settings. The options are a scenario's [staging] keys, with the same defaults:{}",
        args, lines);
}

}  // namespace xfer::pyapi
