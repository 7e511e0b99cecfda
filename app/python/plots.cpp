// draw_plots: hands a results.json's text to python_lib/xferlab_plots inside the embedded
// interpreter and sorts what comes back into files, notes and one of the outcomes the CLI maps
// to exit codes. The figures themselves are Python (matplotlib); nothing is drawn here.
#include <pybind11/embed.h>
#include <pybind11/stl.h>

#include <stdexcept>

#include "python/interpreter.hpp"
#include "python/python.hpp"

namespace py = pybind11;

namespace xfer {
namespace {

// sys.path gets `dir` in front once: the package is found there before anything installed.
void put_first_on_path(const std::filesystem::path& dir) {
    py::list path = py::module_::import("sys").attr("path");
    const std::string entry = std::filesystem::absolute(dir).lexically_normal().string();
    for (auto item : path)
        if (py::isinstance<py::str>(item) && item.cast<std::string>() == entry) return;
    path.insert(0, entry);
}

// The package cannot be imported: missing from lib_dir, or a broken installation.
PlotOutcome import_failed(const py::error_already_set& e, const PlotRequest& request) {
    PlotOutcome out;
    out.status = PlotOutcome::Status::missing_dependency;
    out.message = "xferlab's figure code (package xferlab_plots) cannot be imported from " +
                  request.lib_dir.string() +
                  " (set XFERLAB_PYTHON_LIB to its folder): " + std::string(py::str(e.value()));
    return out;
}

PlotOutcome call_draw(const py::module_& plots, const std::string& results_json,
                      const PlotRequest& request) {
    PlotOutcome out;
    try {
        py::dict drawn = plots.attr("draw")(py::bytes(results_json), request.out_dir.string(),
                                            request.format, request.runs, request.prefix);
        for (auto f : drawn["files"]) out.files.emplace_back(f.cast<std::string>());
        out.notes = drawn["notes"].cast<std::vector<std::string>>();
        out.status = PlotOutcome::Status::drawn;
    } catch (py::error_already_set& e) {
        if (e.matches(plots.attr("MissingDependency"))) {
            out.status = PlotOutcome::Status::missing_dependency;
            out.message = py::str(e.value());
        } else if (e.matches(plots.attr("PlotError"))) {
            out.status = PlotOutcome::Status::bad_input;
            out.message = py::str(e.value());
        } else {  // a bug in the figure code, or a file that could not be written
            out.status = PlotOutcome::Status::failed;
            out.message = e.what();
        }
    }
    return out;
}

}  // namespace

PlotOutcome draw_plots(const std::string& results_json, const PlotRequest& request) {
    try {
        ensure_interpreter({});
        py::gil_scoped_acquire gil;
        put_first_on_path(request.lib_dir);
        py::module_ plots;
        try {
            plots = py::module_::import("xferlab_plots");
        } catch (py::error_already_set& e) {
            return import_failed(e, request);
        }
        return call_draw(plots, results_json, request);
    } catch (const std::exception& e) {  // the interpreter did not start
        PlotOutcome out;
        out.message = e.what();
        return out;
    }
}

}  // namespace xfer
