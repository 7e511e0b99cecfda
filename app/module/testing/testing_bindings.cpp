#include "module/testing/testing_bindings.hpp"

#include <pybind11/stl.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "engine/fake/fake_copy_platform.hpp"
#include "module/memory_views.hpp"
#include "module/module_engine.hpp"

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
    t.def("waited_streams", &fake_waited_streams, "The streams the fake waited for, in order.");
    t.def("use_engine_registry", &fake_use_engine_registry, py::arg("path"),
          "Engines the fake makes from now on join the engine registry in this file, as CUDA "
          "engines join the machine's (\"\": none, the default).");
    t.def("reads_pageable", &fake_set_pageable_access, py::arg("device"), py::arg("on"),
          "Fake `device` says it reads pageable memory through the host's page tables "
          "(cudaDevAttrPageableMemoryAccessUsesHostPageTables) for engines made from now on.");
}

}  // namespace xfer::pyapi
