#include "embed/leaks.hpp"

#include <atomic>

#include "embed/python.hpp"
#include "system/stray_threads.hpp"

namespace py = pybind11;

namespace xfer {
namespace {

std::atomic<bool> g_subinterpreter_leaked{false};

// The list lives in the xferlab module (not in a C++ static) so that it dies with the
// interpreter, never after it.
py::list leaked_list() {
    auto module = py::module_::import("xferlab");
    if (!py::hasattr(module, "_leaked_threads")) module.attr("_leaked_threads") = py::list();
    return module.attr("_leaked_threads");
}

}  // namespace

void remember_leaked_threads(const py::list& threads, int run) {
    auto list = leaked_list();
    for (auto t : threads) {
        list.append(t);
        // Every later run asks whether it is still alive (system/stray_threads.hpp): by its
        // kernel thread id, which Python knows once the thread has started.
        const py::object tid = t.attr("native_id");
        if (!tid.is_none())
            remember_stray_thread({tid.cast<int>(), py::str(t.attr("name")).cast<std::string>(), run});
    }
}

void remember_leaked_subinterpreter() { g_subinterpreter_leaked.store(true); }

bool leaked_threads_alive_with_gil() {
    return g_subinterpreter_leaked.load() || leaked_threads_alive_in_this_interpreter();
}

bool leaked_threads_alive_in_this_interpreter() {
    for (auto t : leaked_list())
        if (t.attr("is_alive")().cast<bool>()) return true;
    return false;
}

bool python_threads_leaked() {
    if (!Py_IsInitialized()) return false;
    if (g_subinterpreter_leaked.load()) return true;
    py::gil_scoped_acquire gil;
    return leaked_threads_alive_with_gil();
}

}  // namespace xfer
