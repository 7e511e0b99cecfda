#pragma once
// The memory behind a Python object, for xferlab.copy: a host array (the buffer protocol,
// __array_interface__, a CPU __dlpack__: NumPy, memoryview, bytearray, torch CPU tensors) or
// a device array (__cuda_array_interface__, a CUDA __dlpack__: CuPy, PyTorch, Numba). Called
// with the GIL held; the view keeps what it borrowed alive until it is destroyed (with the GIL).
#include <pybind11/pybind11.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace xfer::pyapi {

struct MemoryView {
    std::byte* data = nullptr;
    uint64_t bytes = 0;
    bool readonly = false;
    // Declared by the object: on a device (CUDA array interface, CUDA DLPack) or in host
    // memory. Where it really lives is asked of the platform (page-locked or not, which device).
    bool device_side = false;
    int device = -1;  // the device a DLPack tensor names; -1: ask the platform
    // A stream the producer's work on it is queued on (__cuda_array_interface__ v3 "stream"):
    // waited for before the copy reads or writes it.
    std::optional<uintptr_t> stream;
    pybind11::handle type;             // the object's type (borrowed: the object outlives the view)
    std::string kind() const;          // "numpy.ndarray", for messages (the GIL held)
    std::shared_ptr<void> keep_alive;  // the Py_buffer or DLPack capsule it came from
};

// The memory of `obj`, the copy's `role` ("dst" or "src"). A destination must be writable.
// Throws pybind11::type_error (no accepted interface: lists them) or pybind11::value_error
// (read-only destination; not contiguous: names numpy.ascontiguousarray).
MemoryView memory_of(const pybind11::handle& obj, const char* role, bool writable);
// Makes the interned names memory_of looks up; called once at import, so that two threads of a
// free-threaded interpreter never make them at once.
void interface_keys();

}  // namespace xfer::pyapi
