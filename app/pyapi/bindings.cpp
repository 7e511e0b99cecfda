#include "pyapi/bindings.hpp"

#include <fmt/format.h>
#include <pybind11/stl.h>

#include <memory>
#include <optional>
#include <vector>

#include "pyapi/copy_route.hpp"
#include "pyapi/memory_views.hpp"
#include "pyapi/module_engine.hpp"
#include "util/units.hpp"
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
    const MemoryView d = memory_of(dst, "dst", true);
    const MemoryView s = memory_of(src, "src", false);
    const uintptr_t handle = stream_handle(stream);
    const CopyRoute route = route_copy(d, s, engine);
    py::gil_scoped_release release;
    run_copy(route, d, s, engine, handle);
}

// Engine(threads=...): "auto" or a positive count.
int threads_argument(const py::object& v) {
    if (py::isinstance<py::str>(v) && v.cast<std::string>() == "auto") return 0;
    if (py::isinstance<py::int_>(v) && v.cast<int>() >= 1) return v.cast<int>();
    throw py::value_error("threads: \"auto\" or a number of helper threads >= 1");
}

// An argument that is a size of at least `minimum` (an int, or text such as "4MiB") or `word`,
// which stands for `word_value`; nothing when it is neither.
std::optional<uint64_t> size_or_word(const py::object& v, const char* word, uint64_t word_value,
                                     uint64_t minimum) {
    if (py::isinstance<py::str>(v)) {
        const std::string text = v.cast<std::string>();
        if (text == word) return word_value;
        if (auto size = parse_size(text); size && *size >= minimum) return *size;
    } else if (py::isinstance<py::int_>(v) && v.cast<int64_t>() >= int64_t(minimum)) {
        return v.cast<uint64_t>();
    }
    return std::nullopt;
}

// Engine(direct_below=...): "auto" (each direction its own threshold, module_engine.hpp) or a
// size in bytes (0: stage every copy).
uint64_t direct_below_argument(const py::object& v) {
    if (auto size = size_or_word(v, "auto", kDirectBelowAuto, 0)) return *size;
    throw py::value_error(
        "direct_below: \"auto\" or a size in bytes below which a copy is one plain copy (0: "
        "stage every copy)");
}

// Engine(chunk=...): "auto" (each direction its own) or a size for both.
uint64_t chunk_argument(const py::object& v) {
    if (auto size = size_or_word(v, "auto", 0, 4096)) return *size;
    throw py::value_error("chunk: \"auto\" or a size of at least 4 KiB (4096, \"4MiB\")");
}

// Engine(buffers=...): "auto" (0: engine_chunks decides) or chunk buffers per helper.
int buffers_argument(const py::object& v) {
    if (py::isinstance<py::str>(v) && v.cast<std::string>() == "auto") return 0;
    if (py::isinstance<py::int_>(v) && v.cast<int64_t>() >= 1 && v.cast<int64_t>() <= 64)
        return v.cast<int>();
    throw py::value_error("buffers: \"auto\" or page-locked chunks per helper, 1 to 64");
}

// Engine(dma=...): "auto", "chunk" or the bytes per DMA of shared buffers
// (StagingConfig::dma_chunk).
uint64_t dma_argument(const py::object& v) {
    if (py::isinstance<py::str>(v) && v.cast<std::string>() == "auto") return kEngineDmaAuto;
    if (auto size = size_or_word(v, "chunk", 0, 4096)) return *size;
    throw py::value_error(
        "dma: \"auto\" (8 chunks per DMA), \"chunk\" (one chunk per DMA) or a size of at least "
        "4 KiB (\"16MiB\") that the helpers fill together");
}

std::optional<std::vector<int>> affinity_argument(const py::object& v) {
    if (py::isinstance<py::str>(v)) {
        const std::string text = v.cast<std::string>();
        if (text == "gpu-local") return std::nullopt;
        if (text == "none") return std::vector<int>{};
    } else if (py::isinstance<py::sequence>(v)) {
        return v.cast<std::vector<int>>();
    }
    throw py::value_error("affinity: \"gpu-local\", \"none\" or a list of CPU numbers");
}

// Engine.stats()["registry"]: None for an engine without a slot in the machine's engine
// registry; else where the registry is and the share of the CPUs this engine's helpers take.
py::object registry_of(const ModuleEngine& e) {
    const std::optional<EngineRegistryView> v = e.registry();
    if (!v) return py::none();
    py::dict out;
    out["path"] = v->path;
    out["registered"] = v->why.empty();
    if (!v->why.empty()) out["why"] = v->why;
    out["engines"] = v->share.engines;  // live engines sharing CPUs with it, itself included
    out["helpers"] = v->share.active;   // helpers that may take work now
    out["wanted"] = v->share.want;      // helpers it would take alone
    out["cap"] = v->share.cap;          // helpers the sharing engines take together
    return out;
}

// Engine.stats(): what the engine did and where its helpers' time went, as the report says it.
py::dict stats_of(const ModuleEngine& e) {
    const EngineStats s = e.stats();
    const HelperWork& w = s.staged.work;
    const double busy = double(s.staged.busy_ns) / 1e9;
    const double copying = double(w.copy_ns) / 1e9, starting = double(w.start_ns) / 1e9,
                 waiting = double(w.wait_ns) / 1e9;
    const double taking = std::max(0.0, busy - copying - starting - waiting);
    auto share = [&](double part) { return busy > 0 ? part / busy : 0.0; };
    py::dict helpers;
    helpers["busy_s"] = busy;
    helpers["copying_s"] = copying;
    helpers["starting_dmas_s"] = starting;
    helpers["waiting_for_dmas_s"] = waiting;
    helpers["taking_work_s"] = taking;
    helpers["copied_bytes"] = w.copied_bytes;
    const StagingConfig& c = e.config();
    py::dict out;
    out["device"] = e.device();
    out["threads"] = c.threads;
    out["active_helpers"] = e.active_helpers();
    out["buffers"] = c.buffers;
    out["chunk_to_device"] = c.chunk;
    out["chunk_from_device"] = c.chunk_from_device > 0 ? c.chunk_from_device : c.chunk;
    // Bytes per DMA of a staged copy: shared buffers' size, or else each direction's chunk.
    out["dma"] = staging_shares_buffers(c) ? py::object(py::int_(c.dma_chunk)) : py::str("chunk");
    out["direct_below"] = py::dict(py::arg("to_device") = e.direct_below(true),
                                   py::arg("from_device") = e.direct_below(false));
    out["note"] = e.note();
    out["copies"] = py::dict(py::arg("staged") = s.staged.requests,
                             py::arg("plain") = s.plain_copies, py::arg("host") = s.host_copies);
    out["bytes"] = py::dict(py::arg("to_device") = s.staged.to_device_bytes,
                            py::arg("from_device") = s.staged.from_device_bytes,
                            py::arg("page_locked_in_place") = s.staged.direct_bytes,
                            py::arg("plain") = s.plain_bytes);
    out["chunks"] = s.staged.chunks;
    out["pieces"] = s.staged.pieces;  // shared buffers: the helpers' copies into or out of them
    out["taper"] = c.taper;
    out["ramp"] = c.ramp;
    out["linger_us"] = c.linger_ns / 1000;
    out["helpers"] = helpers;
    out["registry"] = registry_of(e);
    // A staged copy's edges, averaged (StagingTotals): the fill before its first DMA and the
    // drain after its last, where the link carries nothing of it, and the span between; and
    // how long the link waited for the helpers (shared buffers, the engine's copies together).
    const double edged = double(std::max<uint64_t>(s.staged.edged, 1));
    out["edges"] =
        py::dict(py::arg("copies") = s.staged.edged,
                 py::arg("to_first_dma_us") = double(s.staged.to_first_dma_ns) / edged / 1e3,
                 py::arg("after_last_dma_us") = double(s.staged.after_last_dma_ns) / edged / 1e3,
                 py::arg("dma_span_us") = double(s.staged.dma_span_ns) / edged / 1e3,
                 py::arg("link_starved_us") = double(s.staged.link_starved_ns) / edged / 1e3);
    out["summary"] = fmt::format(
        "{} helper{}, {} chunks; of their busy time copying {:.0f}% ({:.2f} GB/s per helper while "
        "copying), starting DMAs {:.1f}%, waiting for DMAs {:.0f}%, taking work {:.1f}%",
        c.threads, c.threads == 1 ? "" : "s", s.staged.chunks, 100 * share(copying),
        copying > 0 ? double(w.copied_bytes) / copying / 1e9 : 0.0, 100 * share(starting),
        100 * share(waiting), 100 * share(taking));
    return out;
}

// Host memory the fake platform calls device memory: the tests' stand-in for a CuPy array.
class FakeDeviceArray {
  public:
    FakeDeviceArray(uint64_t bytes, int device)
        : data_(std::max<uint64_t>(bytes, 1)), bytes_(bytes) {
        fake_register(data_.data(), bytes_, device);
    }
    ~FakeDeviceArray() { fake_unregister(data_.data()); }
    FakeDeviceArray(const FakeDeviceArray&) = delete;
    FakeDeviceArray& operator=(const FakeDeviceArray&) = delete;

    py::dict interface() const {
        py::dict d;
        d["shape"] = py::make_tuple(bytes_);
        d["typestr"] = "|u1";
        d["data"] = py::make_tuple(reinterpret_cast<uintptr_t>(data_.data()), false);
        d["strides"] = py::none();
        d["version"] = 3;
        d["stream"] = stream ? py::object(py::int_(stream)) : py::object(py::none());
        return d;
    }
    py::bytes tobytes() const {
        return py::bytes(reinterpret_cast<const char*>(data_.data()), bytes_);
    }
    uintptr_t address(uint64_t offset) const {
        return reinterpret_cast<uintptr_t>(data_.data()) + offset;
    }
    uintptr_t stream = 0;  // "stream" of the interface (0: None)

  private:
    std::vector<std::byte> data_;
    uint64_t bytes_;
};

void bind_testing(py::module_& m) {
    py::module_ t = m.def_submodule(
        "_testing",
        "The fake device of xferlab's own tests: host memory that the module treats "
        "as device memory, copied through the same staging engine.");
    t.def("use_fake_device", &use_fake_platform, py::arg("on"),
          "Copies go to the fake device (True) or to CUDA (False); the shared engines close.");
    py::class_<FakeDeviceArray>(t, "FakeDeviceArray")
        .def(py::init<uint64_t, int>(), py::arg("nbytes"), py::arg("device") = 0)
        .def_property_readonly("__cuda_array_interface__", &FakeDeviceArray::interface)
        .def("tobytes", &FakeDeviceArray::tobytes)
        .def("address", &FakeDeviceArray::address, py::arg("offset") = 0)
        .def_readwrite("stream", &FakeDeviceArray::stream);
    t.def(
        "register_page_locked",
        [](const py::handle& obj) {
            const MemoryView v = memory_of(obj, "obj", false);
            fake_register(v.data, v.bytes, -1, true);
        },
        py::arg("obj"), "The fake treats obj's memory as page-locked host memory.");
    t.def(
        "unregister",
        [](const py::handle& obj) { fake_unregister(memory_of(obj, "obj", false).data); },
        py::arg("obj"));
    t.def(
        "fail_dma_at",
        [](uintptr_t address) { fake_fail_dma_at(reinterpret_cast<void*>(address)); },
        py::arg("address"),
        "Engines made from now on fail the DMA touching this device address (0: none).");
    t.def("waited_streams", &fake_waited_streams, "The streams the fake waited for, in order.");
    t.def("use_engine_registry", &fake_use_engine_registry, py::arg("path"),
          "Engines the fake makes from now on join the engine registry in this file, as CUDA "
          "engines join the machine's (\"\": none, the default).");
}

// xferlab.Engine: a ModuleEngine the user owns.
struct PyEngine {
    std::shared_ptr<ModuleEngine> engine;
};

void bind_engine(py::module_& m) {
    py::class_<PyEngine>(m, "Engine", R"doc(A staging engine: helper threads that copy between
pageable host memory and one device through page-locked chunks, at the rate of copies from
page-locked memory. xferlab.copy shares one per device; make your own to choose its settings.)doc")
        .def(py::init([](int device, const py::object& threads, const py::object& chunk,
                         const py::object& buffers, const py::object& affinity,
                         const py::object& direct_below, const py::object& dma,
                         const py::object& taper, int64_t linger_us, const py::object& ramp) {
                 if (!py::isinstance<py::bool_>(taper))
                     throw py::type_error("taper: True or False");
                 if (!py::isinstance<py::bool_>(ramp)) throw py::type_error("ramp: True or False");
                 if (linger_us < 0 || linger_us > 1'000'000)
                     throw py::value_error(
                         "linger_us: microseconds the idle helpers stay awake after a copy, 0 "
                         "(sleep at once) to 1000000");
                 EngineRequest r;
                 r.device = device;
                 r.threads = threads_argument(threads);
                 r.chunk = chunk_argument(chunk);
                 r.buffers = buffers_argument(buffers);
                 r.dma = dma_argument(dma);
                 r.cpus = affinity_argument(affinity);
                 r.taper = taper.cast<bool>();
                 r.ramp = ramp.cast<bool>();
                 r.linger_ns = linger_us * 1000;
                 const uint64_t below = direct_below_argument(direct_below);
                 CopyPlatform& platform = current_platform();
                 py::gil_scoped_release release;  // allocating and starting takes a while
                 auto engine = std::make_shared<ModuleEngine>(platform, r);
                 engine->set_direct_below(below);
                 return PyEngine{std::move(engine)};
             }),
             py::arg("device") = 0, py::arg("threads") = "auto", py::arg("chunk") = "auto",
             py::arg("buffers") = "auto", py::arg("affinity") = "gpu-local",
             py::arg("direct_below") = "auto", py::arg("dma") = "auto", py::arg("taper") = false,
             py::arg("linger_us") = 0, py::arg("ramp") = false)
        .def(
            "copy",
            [](PyEngine& self, const py::handle& dst, const py::handle& src,
               const py::object& stream) { copy_objects(dst, src, stream, self.engine.get()); },
            py::arg("dst"), py::arg("src"), py::kw_only(), py::arg("stream") = py::none(),
            "Like xferlab.copy, through this engine.")
        .def("stats", [](const PyEngine& self) { return stats_of(*self.engine); })
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

void bind_transfer_api(py::module_& m) {
    static py::exception<EngineError> error(m, "Error", PyExc_RuntimeError);
    py::register_exception_translator([](std::exception_ptr p) {
        try {
            if (p) std::rethrow_exception(p);
        } catch (const EngineError& e) {
            PyErr_SetString(error.ptr(), e.what());
        }
    });
    m.def(
        "copy",
        [](const py::handle& dst, const py::handle& src, const py::object& stream) {
            copy_objects(dst, src, stream, nullptr);
        },
        py::arg("dst"), py::arg("src"), py::kw_only(), py::arg("stream") = py::none(),
        R"doc(Copies src into dst and returns when the bytes have arrived (like cudaMemcpy).
One side is host memory (NumPy, memoryview, bytearray, a CPU tensor), the other a device array
(CuPy, PyTorch CUDA tensor, Numba; __cuda_array_interface__ or __dlpack__), or both host. Pageable
host memory goes through the device's shared staging engine; page-locked memory and copies below
12 MiB to a device (4 MiB from one) are one plain copy. With stream=, the copy starts after the stream's earlier work. The GIL
is released for the whole copy.)doc");
    bind_engine(m);
    m.def("_shutdown", &close_shared_engines, "Closes the shared engines (registered atexit).");
    bind_testing(m);
    m.attr("__version__") = tool_version();
    // Before the interpreter and the CUDA runtime go: helper threads joined, buffers freed.
    py::module_::import("atexit").attr("register")(m.attr("_shutdown"));
}

}  // namespace xfer::pyapi
