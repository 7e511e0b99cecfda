#include "embed/interpreter_lock.hpp"

#include <pybind11/pybind11.h>

#include <atomic>

#include "embed/python.hpp"

namespace py = pybind11;

namespace xfer {
namespace {

// What interpreter_has_gil() saw last: the probe runs inside a CUDA callback, where it cannot
// ask Python.
std::atomic<bool> g_gil_off{false};

}  // namespace

bool this_thread_holds_interpreter_lock() {
#if PY_VERSION_HEX >= 0x030C0000
    // From 3.12 the current thread state is the calling thread's own (thread-local): attached
    // means holding its interpreter's GIL, whichever interpreter that is.
    return py::detail::get_thread_state_unchecked() != nullptr;
#else
    // Before 3.12 the "current" thread state is the GIL holder's, process-wide: ask whether it is
    // this thread's. (No sub-interpreter runs in such a build, so PyGILState_Check is right.)
    return PyGILState_Check() != 0;
#endif
}

bool interpreter_has_gil() {
    bool has = true;
#ifdef Py_GIL_DISABLED
    // sys._is_gil_enabled() exists from 3.13 on, in every build; only a free-threaded one can
    // answer False.
    PyObject* is_enabled = PySys_GetObject("_is_gil_enabled");  // borrowed
    if (is_enabled != nullptr) has = py::reinterpret_borrow<py::object>(is_enabled)().cast<bool>();
#endif
    g_gil_off.store(!has);
    return has;
}

int gil_probe_answer() {
    if (g_gil_off.load(std::memory_order_relaxed)) return -1;
    return this_thread_holds_interpreter_lock() ? 1 : 0;
}

std::string interpreter_description() {
    std::string text = "CPython " PY_VERSION;
    if (embedded_python_free_threaded()) text += " (free-threaded build)";
    return text;
}

}  // namespace xfer
