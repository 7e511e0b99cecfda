#include "module/testing/testing_bindings.hpp"

#include <pybind11/stl.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "engine/fake/fake_copy_platform.hpp"
#include "engine/fake/null_dma_device.hpp"
#include "engine/measured_staging_device.hpp"
#include "engine/stats_probe.hpp"
#include "module/engine_stats.hpp"
#include "module/memory_views.hpp"
#include "module/module_engine.hpp"
#include "util/clock.hpp"

namespace py = pybind11;

namespace xfer::pyapi {

namespace {

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

// The engine's own helpers filling its buffers from `src` with no DMA to wait for
// (NullDmaDevice): `repeats` copies of all of it, after one untimed; the last copy's seconds and
// what the engine and its probe counted over the timed ones.
py::dict fill_alone(const py::handle& src, int helpers, uint64_t dma, uint64_t piece, int buffers,
                    int repeats) {
    const MemoryView v = memory_of(src, "src", false);
    StagingConfig c;
    c.threads = helpers;
    c.buffers = buffers;
    c.chunk = piece;
    c.dma_chunk = dma;
    c.caller_starts = false;  // the helpers' rate alone: the caller only waits
    auto probe = std::make_shared<StatsProbe>(helpers);
    StagingEngine engine(
        c, measured_device(std::make_unique<NullDmaDevice>(staging_layout(c)), probe, c));
    std::byte* nowhere = reinterpret_cast<std::byte*>(uintptr_t(1) << 40);  // never touched
    int64_t took = 0;
    ProbeTotals before;
    {
        py::gil_scoped_release release;
        engine.start();
        engine.to_device(nowhere, v.data, v.bytes);  // untimed: the source's pages and caches
        before = probe->totals();
        for (int r = 0; r < repeats; ++r) {
            const int64_t t0 = now_ns();
            engine.to_device(nowhere, v.data, v.bytes);
            took = now_ns() - t0;
        }
        engine.stop();
    }
    const ProbeTotals after = probe->totals();
    const StagingTotals totals = engine.totals();
    py::dict out;
    out["seconds"] = double(took) / 1e9;
    out["to_device_bytes"] = totals.to_device_bytes;
    out["pieces"] = totals.pieces;
    out["copied_bytes"] = after.work.copied_bytes - before.work.copied_bytes;
    out["copying_s"] = double(after.work.copy_ns - before.work.copy_ns) / 1e9;
    out["helpers"] = helpers;
    return out;
}

}  // namespace

void bind_testing(py::module_& m) {
    py::module_ t = m.def_submodule(
        "_testing",
        "The fake device of xferlab's own tests: host memory that the module treats "
        "as device memory, copied through the same staging engine.");
    t.def(
        "use_fake_device", [](bool on) { replace_platform(on ? &fake_copy_platform() : nullptr); },
        py::arg("on"),
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
    t.def("fill_alone", &fill_alone, py::arg("src"), py::kw_only(), py::arg("helpers"),
          py::arg("dma"), py::arg("piece"), py::arg("buffers"), py::arg("repeats") = 1,
          "The engine's helpers filling its buffers from src with no DMA (issue #58's fill "
          "rate): {seconds of the last copy, to_device_bytes, pieces, copied_bytes, copying_s, "
          "helpers}, counted over the copies after an untimed first.");
    t.def(
        "shared_engine_stats", [](int device) { return engine_stats(*shared_engine(device)); },
        py::arg("device") = 0,
        "stats() of the engine xferlab.copy shares on `device` (made if there is none).");
    t.def("waited_streams", &fake_waited_streams, "The streams the fake waited for, in order.");
    t.def("use_engine_registry", &fake_use_engine_registry, py::arg("path"),
          "Engines the fake makes from now on join the engine registry in this file, as CUDA "
          "engines join the machine's (\"\": none, the default).");
    t.def("reads_pageable", &fake_set_pageable_access, py::arg("device"), py::arg("on"),
          "Fake `device` says it reads pageable memory through the host's page tables "
          "(cudaDevAttrPageableMemoryAccessUsesHostPageTables) for engines made from now on.");
}

}  // namespace xfer::pyapi
