#include "embed/interpreter_setup.hpp"

#include <pybind11/embed.h>

#include <stdexcept>
#include <string>

#include "embed/interpreter_locals.hpp"
#include "embed/payload_objects.hpp"
#include "embed/payload_output.hpp"
#include "embed/run_state.hpp"

namespace py = pybind11;

namespace xfer {
namespace {

// The worker bound to the calling thread, by its number in the whole run; -1 when none.
int bound_worker() {
    const auto run = current_run();
    if (!run) return -1;
    InFlight busy(*run);  // the workers stay while the run is open
    if (!run->open()) return -1;
    const int local = worker_bound_to_this_thread(run->id);
    return local >= 0 && local < run->worker_count() ? run->worker(local).index() : -1;
}

// PayloadStream's sink: the prefix names the run and the worker that wrote.
void emit_payload_output(const std::string& thread, const py::bytes& text, int worker) {
    const auto run = current_run();
    const std::string prefix = run ? payload_output_prefix(run->run.settings.payload,
                                                           run->run.position.index, worker, thread)
                                   : payload_output_prefix("", 0, -1, thread);
    std::string lines = text;
    py::gil_scoped_release nogil;  // a slow stderr must not stall the other Python threads
    write_payload_output(prefix, lines);
}

}  // namespace

void set_up_interpreter(const std::vector<std::filesystem::path>& payload_dirs) {
    try {
        py::module_::import("threading");
        py::module_ xferlab = py::module_::import("xferlab");
        py::module_::import("os").attr("_exit") = xferlab.attr("_payload_exit");
        auto sys = py::module_::import("sys");
        py::list argv;
        argv.append("xferlab");
        sys.attr("argv") = argv;
        // Belt and braces: whatever the Python build, no relative entry (the current
        // directory) stays in sys.path.
        py::list path;
        for (const auto& dir : payload_dirs) path.append(dir.string());
        for (auto entry : sys.attr("path").cast<py::list>()) {
            auto text = entry.cast<std::string>();
            if (!text.empty() && text.front() == '/') path.append(entry);
        }
        sys.attr("path") = path;
        xferlab.attr("_runner").attr("install_output")(py::cpp_function(&emit_payload_output),
                                                       py::cpp_function(&bound_worker));
    } catch (const py::error_already_set& e) {
        throw std::runtime_error(std::string("starting the embedded Python failed: ") + e.what());
    }
}

}  // namespace xfer
