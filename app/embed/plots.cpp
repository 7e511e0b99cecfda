// draw_plots: hands a results.json's text and its runs' copies (as columns) to
// python/xferlab_plots inside the embedded interpreter and sorts what comes back into
// files, notes and one of the outcomes the CLI maps to exit codes. The figures themselves are
// Python (matplotlib); nothing is drawn here.
#include <pybind11/embed.h>
#include <pybind11/stl.h>

#include <cstring>
#include <stdexcept>

#include "embed/interpreter.hpp"
#include "embed/python.hpp"

namespace py = pybind11;

namespace xfer {
namespace {

// A path's bytes as Python's str for a path (os.fsdecode: bytes that are not UTF-8 become lone
// surrogates, which every os function turns back into the same bytes). A std::string handed
// over as py::str is decoded as UTF-8, and a folder named with byte 0xff made plot fail.
py::object path_text(const std::string& bytes) {
    return py::module_::import("os").attr("fsdecode")(py::bytes(bytes));
}

// What Python gives back (a file's name, a note) as the bytes it stands for (os.fsencode).
std::string bytes_of(const py::handle& text) {
    return py::module_::import("os").attr("fsencode")(text).cast<std::string>();
}

// sys.path gets `dir` in front once: the package is found there before anything installed.
void put_first_on_path(const std::filesystem::path& dir) {
    py::list path = py::module_::import("sys").attr("path");
    const py::object entry = path_text(std::filesystem::absolute(dir).lexically_normal().string());
    for (auto item : path)
        if (item.equal(entry)) return;
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

// One field of every record as the bytes of a bytearray (native byte order): numpy reads it in
// place (np.frombuffer in xferlab_plots/results.py, which names each column's type), so a copy
// costs sizeof(T) bytes there and no Python object.
template <class T, class Field>
py::bytearray record_column(const std::vector<Record>& records, Field field) {
    py::bytearray out(static_cast<const char*>(nullptr), records.size() * sizeof(T));
    char* at = PyByteArray_AS_STRING(out.ptr());
    for (const Record& r : records) {
        const T value = field(r);
        std::memcpy(at, &value, sizeof(T));
        at += sizeof(T);
    }
    return out;
}

// The fields the figures draw, by results.json's record key: results.COLUMNS on the Python side
// names the same keys with these types.
py::dict copy_columns(const std::vector<Record>& records) {
    py::dict c;
    c["worker"] = record_column<int64_t>(records, [](const Record& r) { return r.worker; });
    c["warmup"] = record_column<bool>(records, [](const Record& r) { return r.warmup; });
    // A double, the type the figures gave size_bytes when they read it from results.json text.
    c["size_bytes"] = record_column<double>(
        records, [](const Record& r) { return static_cast<double>(r.bytes); });
    c["host_start_ns"] =
        record_column<int64_t>(records, [](const Record& r) { return r.host_start_ns; });
    c["host_end_ns"] =
        record_column<int64_t>(records, [](const Record& r) { return r.host_end_ns; });
    c["device_start_ns"] =
        record_column<int64_t>(records, [](const Record& r) { return r.device_start_ns; });
    c["device_end_ns"] =
        record_column<int64_t>(records, [](const Record& r) { return r.device_end_ns; });
    return c;
}

// Every run's columns. Each run's records are freed as soon as its columns exist: at most the
// records and one run's columns are in memory together.
py::list columns_of(RunRecords& records) {
    py::list out;
    for (auto& run : records) {
        out.append(copy_columns(run));
        std::vector<Record>().swap(run);
    }
    return out;
}

PlotOutcome call_draw(const py::module_& plots, const std::string& results_json,
                      RunRecords& records, const PlotRequest& request) {
    PlotOutcome out;
    try {
        py::list columns = columns_of(records);
        py::list runs;  // as typed: a label is matched as text, a name's bytes kept
        for (const std::string& run : request.runs) runs.append(path_text(run));
        py::dict drawn = plots.attr("draw")(
            py::bytes(results_json), path_text(request.out_dir.string()), request.format, runs,
            path_text(request.prefix), py::arg("columns") = columns);
        for (auto f : drawn["files"]) out.files.emplace_back(bytes_of(f));
        for (auto note : drawn["notes"]) out.notes.push_back(bytes_of(note));
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

PlotOutcome draw_plots(const std::string& results_json, RunRecords records,
                       const PlotRequest& request) {
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
        return call_draw(plots, results_json, records, request);
    } catch (const std::exception& e) {  // the interpreter did not start
        PlotOutcome out;
        out.message = e.what();
        return out;
    }
}

}  // namespace xfer
