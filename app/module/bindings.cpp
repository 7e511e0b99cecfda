#include "module/bindings.hpp"

#include <fmt/format.h>
#include <pybind11/stl.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "module/copy_route.hpp"
#include "module/engine_arguments.hpp"
#include "module/engine_stats.hpp"
#include "module/memory_views.hpp"
#include "module/module_engine.hpp"
#include "settings/engine_defaults.hpp"
#include "util/clock.hpp"
#include "util/format.hpp"
#include "util/version.hpp"

namespace py = pybind11;

namespace xfer::pyapi {

namespace {

// A stream as the frameworks hand it over: an int handle, CuPy's Stream (.ptr), PyTorch's
// (.cuda_stream), or anything with __cuda_stream__() -> (version, handle). None: no stream.
uintptr_t stream_handle(const py::object& s) {
    if (s.is_none()) return 0;
    if (py::isinstance<py::int_>(s)) return s.cast<uintptr_t>();
    if (py::hasattr(s, "__cuda_stream__"))
        return s.attr("__cuda_stream__")().cast<py::tuple>()[1].cast<uintptr_t>();
    if (py::hasattr(s, "cuda_stream")) return s.attr("cuda_stream").cast<uintptr_t>();
    if (py::hasattr(s, "ptr")) return s.attr("ptr").cast<uintptr_t>();
    throw py::type_error(
        "stream: give a CUDA stream handle (an int), a cupy.cuda.Stream, a torch.cuda.Stream "
        "or an object with __cuda_stream__(), or None");
}

// The copy itself: views with the GIL, the copy without it, the views released with it.
void copy_objects(const py::handle& dst, const py::handle& src, const py::object& stream,
                  ModuleEngine* engine) {
    // A measured engine's calls are timed too (Engine.stats()["last_call_ns"]); no clock read
    // otherwise.
    CallMoments m;
    const bool timed = engine && engine->measured();
    if (timed) m.entered = now_ns();
    // First of all: the helpers' wake-ups then overlap the way into the engine (the views
    // alone took 33-80 us on the H100 host), where the engine's latest copy was staged.
    if (engine)
        engine->expect_copy();
    else
        expect_shared_copy();
    const MemoryView d = memory_of(dst, "dst", true);
    const MemoryView s = memory_of(src, "src", false);
    if (timed) m.viewed = now_ns();
    const uintptr_t handle = stream_handle(stream);
    const CopyRoute route = route_copy(d, s, engine);
    if (timed) m.routed = now_ns();
    py::gil_scoped_release release;
    run_copy(route, d, s, engine, handle, timed ? &m : nullptr);
}

// xferlab.Engine: a ModuleEngine the user owns.
struct PyEngine {
    std::shared_ptr<ModuleEngine> engine;
};

void bind_engine(py::module_& m) {
    static const std::string doc = engine_signature_doc();
    py::class_<PyEngine>(m, "Engine", doc.c_str())
        .def(py::init([](int device, const py::kwargs& kwargs) {
                 const EngineOptions options = engine_options(kwargs);
                 CopyPlatform& platform = current_platform();
                 py::gil_scoped_release release;  // allocating and starting takes a while
                 return PyEngine{std::make_shared<ModuleEngine>(platform, device, options)};
             }),
             py::arg("device") = 0)
        .def_static(
            "defaults",
            [](int device) {
                CopyPlatform& platform = current_platform();
                DeviceFacts facts;
                {
                    py::gil_scoped_release release;  // the first call probes the device
                    facts = platform.facts(device);
                }
                return engine_option_defaults(resolve(EngineOptions{}, facts));
            },
            py::arg("device") = 0,
            "Every option's default (the same as a scenario's [staging] keys'), what an engine "
            "on `device` here would use for it, and the rule that makes a number of \"auto\": "
            "{option: {\"default\": ..., \"value\": ..., \"rule\": str or None}}.")
        .def(
            "copy",
            [](PyEngine& self, const py::handle& dst, const py::handle& src,
               const py::object& stream) { copy_objects(dst, src, stream, self.engine.get()); },
            py::arg("dst"), py::arg("src"), py::kw_only(), py::arg("stream") = py::none(),
            "Like xferlab.copy, through this engine.")
        .def("stats", [](const PyEngine& self) { return engine_stats(*self.engine); })
        .def("close",
             [](PyEngine& self) {
                 py::gil_scoped_release release;
                 self.engine->close();
             })
        .def(
            "__enter__", [](PyEngine& self) -> PyEngine& { return self; },
            py::return_value_policy::reference)
        .def("__exit__",
             [](PyEngine& self, const py::object&, const py::object&, const py::object&) {
                 py::gil_scoped_release release;
                 self.engine->close();
                 return false;
             })
        .def_property_readonly("device", [](const PyEngine& e) { return e.engine->device(); })
        .def_property_readonly("threads",
                               [](const PyEngine& e) { return e.engine->config().threads; })
        .def_property_readonly("note", [](const PyEngine& e) { return e.engine->note(); })
        .def_property_readonly("closed", [](const PyEngine& e) { return e.engine->closed(); });
}

}  // namespace

void bind_transfer_api(py::module_& m, StatsProbeMaker probes) {
    set_engine_probe_maker(std::move(probes));
    interface_keys();  // made here, at import: not first by two threads at once (3.13t)
    static py::exception<EngineError> error(m, "Error", PyExc_RuntimeError);
    // Local to this module: another build of xferlab loaded beside it (its own EngineError of the
    // same name) must not turn this one's errors into its own Error type.
    py::register_local_exception_translator([](std::exception_ptr p) {
        try {
            if (p) std::rethrow_exception(p);
        } catch (const EngineError& e) {
            PyErr_SetString(error.ptr(), e.what());
        }
    });
    // The thresholds in the docstring are kEngineDefaults' (settings/engine_defaults.hpp).
    static const std::string copy_doc = fmt::format(
        R"doc(Copies src into dst and returns when the bytes have arrived (like cudaMemcpy).
One side is host memory (NumPy, memoryview, bytearray, a CPU tensor), the other a device array
(CuPy, PyTorch CUDA tensor, Numba; __cuda_array_interface__ or __dlpack__), or both host. Pageable
host memory goes through the device's shared staging engine; page-locked memory, copies below
{} to a device ({} from one) and, where the device reads pageable memory through the
host's page tables, every copy are one plain copy; a copy of zero bytes does nothing. With
stream=, the copy starts after the stream's earlier work. The GIL is released for the whole
copy.)doc",
        format_size(kEngineDefaults.direct_below_to_device),
        format_size(kEngineDefaults.direct_below_from_device));
    m.def(
        "copy",
        [](const py::handle& dst, const py::handle& src, const py::object& stream) {
            copy_objects(dst, src, stream, nullptr);
        },
        py::arg("dst"), py::arg("src"), py::kw_only(), py::arg("stream") = py::none(),
        copy_doc.c_str());
    bind_engine(m);
    m.def("_shutdown", &close_shared_engines, "Closes the shared engines (registered atexit).");
    m.attr("__version__") = tool_version();
    // Before the interpreter and the CUDA runtime go: helper threads joined, buffers freed.
    py::module_::import("atexit").attr("register")(m.attr("_shutdown"));
}

}  // namespace xfer::pyapi
