// What a Python thread gets by default (mimic = "python", `xferlab threads`): one
// threading.Thread reads its own ThreadInfo, and is joined.
#include "system/thread_probe.hpp"

#include <pybind11/embed.h>

#include "embed/interpreter.hpp"
#include "embed/interpreter_lock.hpp"

namespace py = pybind11;

namespace xfer {

ThreadInfo python_thread_info(const std::filesystem::path& payload_dir) {
    ensure_interpreter(payload_dir);
    ThreadInfo info;
    py::gil_scoped_acquire gil;
    auto threading = py::module_::import("threading");
    auto probe = py::cpp_function([&info]() {
        info = capture_thread_info("python", -1);
        info.python_thread = true;
        if (interpreter_has_gil()) info.gil_held = this_thread_holds_interpreter_lock();
    });
    py::object thread =
        threading.attr("Thread")(py::arg("target") = probe, py::arg("name") = "xferlab-probe");
    thread.attr("start")();
    thread.attr("join")();  // releases the GIL while it waits
    if (info.tid == 0) throw std::runtime_error("the Python probe thread did not run");
    return info;
}

}  // namespace xfer
