#include "module/memory_views.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cctype>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace py = pybind11;

namespace xfer::pyapi {

namespace {

// The names a copy looks up, made and hashed once: with a char* every lookup would make a new
// str and hash it (a small copy's cost is mostly such Python work). Never freed: nothing may
// touch a Python object after the interpreter is gone.
struct InterfaceKeys {
    py::handle data, shape, typestr, strides, stream, cuda_interface, array_interface;
};
py::handle interned(const char* name) {
    PyObject* s = PyUnicode_InternFromString(name);
    if (!s) throw py::error_already_set();
    return s;
}
const InterfaceKeys& keys() {
    static const InterfaceKeys k{interned("data"),
                                 interned("shape"),
                                 interned("typestr"),
                                 interned("strides"),
                                 interned("stream"),
                                 interned("__cuda_array_interface__"),
                                 interned("__array_interface__")};
    return k;
}

// d[key], or an empty handle when absent (borrowed: `d` keeps it alive).
py::handle item(const py::dict& d, py::handle key) {
    PyObject* v = PyDict_GetItemWithError(d.ptr(), key.ptr());
    if (!v && PyErr_Occurred()) throw py::error_already_set();
    return v;
}

// d[key] that an interface must have.
py::handle required(const py::dict& d, py::handle key, const char* role) {
    if (py::handle v = item(d, key)) return v;
    throw py::value_error(fmt::format("{}: its array interface has no \"{}\"", role,
                                      py::str(key).cast<std::string>()));
}

// DLPack's C structures (dlpack.h, version 0.8 layout), declared here: the module takes the
// capsule any producer makes and needs no header of theirs.
struct DlDevice {
    int32_t device_type;
    int32_t device_id;
};
struct DlDataType {
    uint8_t code;
    uint8_t bits;
    uint16_t lanes;
};
struct DlTensor {
    void* data;
    DlDevice device;
    int32_t ndim;
    DlDataType dtype;
    int64_t* shape;
    int64_t* strides;
    uint64_t byte_offset;
};
struct DlManagedTensor {
    DlTensor dl_tensor;
    void* manager_ctx;
    void (*deleter)(DlManagedTensor*);
};
constexpr int32_t kDlCpu = 1, kDlCuda = 2, kDlCudaHost = 3, kDlCudaManaged = 13;

std::string kind_of_type(const py::handle& type) {
    return py::str(type.attr("__module__")).cast<std::string>() + "." +
           py::str(type.attr("__qualname__")).cast<std::string>();
}

std::string kind_of(const py::handle& obj) { return kind_of_type(py::type::handle_of(obj)); }

[[noreturn]] void not_contiguous(const char* role, const std::string& kind) {
    throw py::value_error(fmt::format(
        "{} ({}) is not contiguous: xferlab.copy moves one block of memory; pass a contiguous "
        "copy, e.g. numpy.ascontiguousarray(a), cupy.ascontiguousarray(a) or "
        "tensor.contiguous()",
        role, kind));
}

[[noreturn]] void read_only(const char* role, const std::string& kind) {
    throw py::value_error(fmt::format(
        "{} ({}) is read-only: the destination of a copy must be writable (a NumPy array with "
        "flags.writeable set, a bytearray, a writable memoryview)",
        role, kind));
}

// Whether `strides` (bytes per step) are those of a C-contiguous array of `shape`; extents of
// one may have any stride. The shape is checked first (checked_extent_bytes): no product here
// overflows.
bool c_contiguous(const std::vector<int64_t>& shape, const std::vector<int64_t>& strides,
                  int64_t itemsize) {
    int64_t expected = itemsize;
    for (size_t i = shape.size(); i-- > 0;) {
        if (shape[i] != 1 && strides[i] != expected) return false;
        expected *= shape[i];
    }
    return true;
}

std::string shape_text(const std::vector<int64_t>& shape) {
    if (shape.size() == 1) return fmt::format("({},)", shape[0]);
    return fmt::format("({})", fmt::join(shape, ", "));
}

// The bytes of `shape` x `itemsize`, refused (ValueError) where an extent is negative, the
// item size is not a positive number of bytes, or the product is beyond a 64-bit size: a
// negative extent was read as 18446744073709551611 bytes and an overflowing shape as a 0-byte
// copy. Every partial product is checked, so an extent of 0 does not hide one that overflows.
uint64_t checked_extent_bytes(const std::vector<int64_t>& shape, int64_t itemsize, const char* role,
                              const py::handle& obj) {
    const auto refuse = [&](const std::string& why) {
        throw py::value_error(
            fmt::format("{} ({}) has shape {}: {}", role, kind_of(obj), shape_text(shape), why));
    };
    for (int64_t extent : shape)
        if (extent < 0) refuse("an extent cannot be negative");
    if (itemsize <= 0)
        refuse(
            fmt::format("its items are {} bytes each (typestr or dtype): xferlab.copy "
                        "moves whole bytes",
                        itemsize));
    int64_t bytes = itemsize;
    for (int64_t extent : shape)
        if (extent != 0 && __builtin_mul_overflow(bytes, extent, &bytes))
            refuse(fmt::format("with items of {} byte{}: more bytes than a 64-bit size holds",
                               itemsize, itemsize == 1 ? "" : "s"));
    for (int64_t extent : shape)
        if (extent == 0) return 0;
    return uint64_t(bytes);
}

// The bytes of an array of `shape` with items of `itemsize` bytes, after checking that its
// `strides` (in bytes; none: C order) make it one block.
uint64_t contiguous_bytes(const std::vector<int64_t>& shape,
                          const std::optional<std::vector<int64_t>>& strides, int64_t itemsize,
                          const char* role, const py::handle& obj) {
    const uint64_t bytes = checked_extent_bytes(shape, itemsize, role, obj);
    if (strides && strides->size() != shape.size())
        throw py::value_error(fmt::format("{} ({}) has {} strides for a shape of {} dimensions",
                                          role, kind_of(obj), strides->size(), shape.size()));
    if (strides && !c_contiguous(shape, *strides, itemsize)) not_contiguous(role, kind_of(obj));
    return bytes;
}

// "<f4" -> 4, "|u1" -> 1, "<c16" -> 16: the digits after the type letter; 0 when there are
// none, -1 when they are beyond any size (checked_extent_bytes refuses both).
int64_t itemsize_of(const std::string& typestr) {
    size_t i = 0;
    while (i < typestr.size() && !std::isdigit(static_cast<unsigned char>(typestr[i]))) ++i;
    if (i == typestr.size()) return 0;
    try {
        return std::stoll(typestr.substr(i));
    } catch (const std::out_of_range&) {
        return -1;
    }
}

std::optional<MemoryView> from_buffer(const py::handle& obj, const char* role, bool writable) {
    if (!PyObject_CheckBuffer(obj.ptr())) return std::nullopt;
    auto view = std::make_unique<Py_buffer>();
    const int flags = PyBUF_STRIDES | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(obj.ptr(), view.get(), flags) != 0) {
        if (!writable) throw py::error_already_set();
        // Refused as writable: if it is readable, say what is wrong in the copy's terms.
        PyErr_Clear();
        if (PyObject_GetBuffer(obj.ptr(), view.get(), PyBUF_STRIDES) != 0)
            throw py::error_already_set();
        PyBuffer_Release(view.get());
        read_only(role, kind_of(obj));
    }
    MemoryView m;
    m.data = static_cast<std::byte*>(view->buf);
    m.bytes = uint64_t(view->len);
    m.readonly = view->readonly != 0;
    m.type = py::type::handle_of(obj);
    const bool contiguous = PyBuffer_IsContiguous(view.get(), 'C') != 0;
    m.keep_alive = std::shared_ptr<Py_buffer>(view.release(), [](Py_buffer* b) {
        PyBuffer_Release(b);
        delete b;
    });
    if (!contiguous) not_contiguous(role, kind_of(obj));
    return m;
}

// __array_interface__ or __cuda_array_interface__: {"data": (ptr, readonly), "shape",
// "typestr", "strides", and for the latter's version 3 "stream"}.
MemoryView from_interface(const py::handle& obj, const py::dict& d, bool device, const char* role,
                          bool writable) {
    const InterfaceKeys& k = keys();
    const py::tuple data = required(d, k.data, role).cast<py::tuple>();
    MemoryView m;
    m.device_side = device;
    m.type = py::type::handle_of(obj);
    m.data = reinterpret_cast<std::byte*>(data[0].cast<uintptr_t>());
    m.readonly = data[1].cast<bool>();
    std::vector<int64_t> shape;
    for (const auto& s : required(d, k.shape, role).cast<py::tuple>())
        shape.push_back(s.cast<int64_t>());
    const int64_t itemsize = itemsize_of(required(d, k.typestr, role).cast<std::string>());
    std::optional<std::vector<int64_t>> strides;
    if (py::handle st = item(d, k.strides); st && !st.is_none()) {
        strides.emplace();
        for (const auto& s : st.cast<py::tuple>()) strides->push_back(s.cast<int64_t>());
    }
    m.bytes = contiguous_bytes(shape, strides, itemsize, role, obj);
    if (py::handle stream = item(d, k.stream); device && stream && !stream.is_none())
        m.stream = stream.cast<uintptr_t>();
    if (writable && m.readonly) read_only(role, kind_of(obj));
    m.keep_alive =
        std::shared_ptr<py::object>(new py::object(py::reinterpret_borrow<py::object>(obj)));
    return m;
}

MemoryView from_dlpack(const py::handle& obj, const char* role, bool writable) {
    const py::tuple where = obj.attr("__dlpack_device__")().cast<py::tuple>();
    const int32_t type = where[0].cast<int32_t>();
    if (type != kDlCpu && type != kDlCuda && type != kDlCudaHost && type != kDlCudaManaged)
        throw py::type_error(fmt::format(
            "{} ({}) is on a DLPack device of type {}: xferlab.copy moves between host memory "
            "and CUDA devices",
            role, kind_of(obj), type));
    const bool cuda = type == kDlCuda || type == kDlCudaManaged;
    // A CUDA producer makes its work visible to the consumer's stream: the legacy default
    // stream (1), which the copy then waits for.
    py::object capsule =
        cuda ? obj.attr("__dlpack__")(py::arg("stream") = 1) : obj.attr("__dlpack__")();
    auto* managed = static_cast<DlManagedTensor*>(PyCapsule_GetPointer(capsule.ptr(), "dltensor"));
    if (!managed) throw py::error_already_set();
    // Taken: the capsule no longer frees it; the view calls its deleter when done.
    PyCapsule_SetName(capsule.ptr(), "used_dltensor");
    MemoryView m;
    m.keep_alive = std::shared_ptr<DlManagedTensor>(managed, [](DlManagedTensor* t) {
        if (t->deleter) t->deleter(t);
    });
    const DlTensor& t = managed->dl_tensor;
    m.type = py::type::handle_of(obj);
    m.device_side = cuda;
    m.device = cuda ? t.device.device_id : -1;
    if (cuda) m.stream = 1;
    m.data = static_cast<std::byte*>(t.data) + t.byte_offset;
    const int64_t itemsize = int64_t(t.dtype.bits) * t.dtype.lanes / 8;
    const std::vector<int64_t> shape(t.shape, t.shape + t.ndim);
    std::optional<std::vector<int64_t>> strides;
    if (t.strides) {  // in elements
        strides.emplace();
        for (int i = 0; i < t.ndim; ++i) strides->push_back(t.strides[i] * itemsize);
    }
    m.bytes = contiguous_bytes(shape, strides, itemsize, role, obj);
    // DLPack has no read-only flag: a producer that shares read-only memory says so when
    // asked for it; writing into it is the caller's business, as with any DLPack consumer.
    (void)writable;
    return m;
}

// Types whose buffer is host memory and that have no device interface: for them the buffer
// protocol is asked first, with no attribute lookup that fails (most of a small copy's cost).
// Every other type is asked for __cuda_array_interface__ first: CuPy's buffer protocol raises
// instead of declining, and an array with both names its device memory in the interface.
bool host_buffer_type(PyTypeObject* t) {
    return t == &PyByteArray_Type || t == &PyMemoryView_Type || t == &PyBytes_Type ||
           std::strcmp(t->tp_name, "numpy.ndarray") == 0;
}

}  // namespace

std::string MemoryView::kind() const { return type ? kind_of_type(type) : std::string("memory"); }

MemoryView memory_of(const py::handle& obj, const char* role, bool writable) {
    // What a small copy costs is mostly this (docs/performance.md, "The Python module"): each
    // interface asked for once (CuPy and PyTorch build the dictionary on every access), the
    // type's name only for a message.
    if (host_buffer_type(Py_TYPE(obj.ptr())))
        if (auto m = from_buffer(obj, role, writable)) return *m;
    if (py::object cai = py::getattr(obj, keys().cuda_interface, py::none()); !cai.is_none())
        return from_interface(obj, cai.cast<py::dict>(), true, role, writable);
    if (auto m = from_buffer(obj, role, writable)) return *m;
    if (py::object ai = py::getattr(obj, keys().array_interface, py::none()); !ai.is_none())
        return from_interface(obj, ai.cast<py::dict>(), false, role, writable);
    if (py::hasattr(obj, "__dlpack__") && py::hasattr(obj, "__dlpack_device__"))
        return from_dlpack(obj, role, writable);
    throw py::type_error(fmt::format(
        "{} ({}) is not memory xferlab.copy can read: give a host array (the buffer protocol, "
        "__array_interface__ or a CPU __dlpack__: NumPy, memoryview, bytearray, a CPU tensor) or "
        "a device array (__cuda_array_interface__ or a CUDA __dlpack__: CuPy, PyTorch, Numba)",
        role, kind_of(obj)));
}

void interface_keys() { (void)keys(); }

}  // namespace xfer::pyapi
