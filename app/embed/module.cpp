// The embedded module `xferlab`: the payload API (docs/payload-api.md). Worker.copy() calls
// Worker::copy_once, the very function the host launchers' loop calls.
#include <pybind11/embed.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cstring>
#include <memory>

#include "backend/payload_engine_probe.hpp"
#include "embed/gap_mark.hpp"
#include "embed/interpreter.hpp"
#include "embed/interpreter_locals.hpp"
#include "embed/interpreter_lock.hpp"
#include "embed/payload_exit.hpp"
#include "embed/payload_objects.hpp"
#include "embed/py_convert.hpp"
#include "embed/python.hpp"
#include "embed/runner_source.hpp"
#include "module/bindings.hpp"
#include "system/thread_probe.hpp"
#include "util/clock.hpp"
#include "util/units.hpp"
#include "util/version.hpp"

namespace py = pybind11;

namespace xfer {
namespace {

// A C-contiguous view of any buffer-protocol object (bytearray, memoryview, HostBuffer, ...).
class ContiguousView {
  public:
    ContiguousView(const py::object& obj, bool writable) {
        int flags = PyBUF_C_CONTIGUOUS | (writable ? PyBUF_WRITABLE : 0);
        if (PyObject_GetBuffer(obj.ptr(), &view_, flags) != 0) throw py::error_already_set();
    }
    ~ContiguousView() { PyBuffer_Release(&view_); }
    ContiguousView(const ContiguousView&) = delete;
    ContiguousView& operator=(const ContiguousView&) = delete;
    void* data() const { return view_.buf; }
    uint64_t size() const { return uint64_t(view_.len); }

  private:
    Py_buffer view_{};
};

// The calling thread as the payload API labels it: the interpreter's main thread, a thread
// created by Python (threading.Thread), or a native thread that attached itself.
py::dict calling_thread_info() {
    auto threading = py::module_::import("threading");
    py::object current = threading.attr("current_thread")();
    std::string label = "python";
    if (current.is(threading.attr("main_thread")()))
        label = "main";
    else if (py::isinstance(current, threading.attr("_DummyThread")))
        label = "native";
    const auto run = current_run();
    ThreadInfo info = capture_thread_info(label, run ? worker_bound_to_this_thread(run->id) : -1);
    info.python_thread = label == "python";
    if (interpreter_has_gil()) info.gil_held = this_thread_holds_interpreter_lock();
    py::dict d = thread_info_to_dict(info);
    d["thread_name"] = current.attr("name");
    return d;
}

// The calling thread's interpreter: which one, and what lock it has.
py::dict interpreter_info() {
    PyInterpreterState* here = PyInterpreterState_Get();
    py::dict d;
    d["id"] = PyInterpreterState_GetID(here);
    d["main"] = here == PyInterpreterState_Main();
    d["gil"] = interpreter_has_gil();
    d["free_threaded"] = embedded_python_free_threaded();
    d["version"] = PY_VERSION;
    return d;
}

// The transfer API keeps process-wide Python objects (its exception type, interned names) and
// was written for a GIL: it is bound where one interpreter with a GIL uses it.
bool binds_transfer_api() {
    return PyInterpreterState_Get() == PyInterpreterState_Main() &&
           !embedded_python_free_threaded();
}

}  // namespace

void link_xferlab_module() {}

}  // namespace xfer

// Declared safe without a GIL, so that importing it leaves a free-threaded interpreter's GIL off,
// and safe in sub-interpreters with a GIL of their own (launcher python-subinterp). pybind11
// before 3 (Debian 12's 2.10) knows neither: its embedded Python has a GIL and no
// sub-interpreters run in it.
#if PYBIND11_VERSION_MAJOR >= 3
PYBIND11_EMBEDDED_MODULE(xferlab, m, py::mod_gil_not_used(),
                         py::multiple_interpreters::per_interpreter_gil()) {
#else
PYBIND11_EMBEDDED_MODULE(xferlab, m) {
#endif
    using namespace xfer;
    m.doc() =
        "xferlab's payload API: run context, workers whose copy() is the native copy routine "
        "host threads run, thread introspection, host buffers. See docs/payload-api.md.";
    m.attr("__version__") = tool_version();

    // Created once per interpreter, kept by this module and by the C++ side
    // (embed/interpreter_locals.hpp) for the interpreter's lifetime.
    PyObject* stopped = PyErr_NewExceptionWithDoc(
        "xferlab.Stopped",
        "Raised by a payload call once its run is stopped (run timeout, SIGINT) or over.",
        PyExc_RuntimeError, nullptr);
    if (stopped == nullptr) throw py::error_already_set();
    set_stopped_exception_type(stopped);  // keeps a reference of its own
    m.attr("Stopped") = py::reinterpret_steal<py::object>(stopped);

    py::class_<PayloadWorker>(m, "Worker",
                              "One worker's buffers; copy() is the native copy routine.")
        .def("copy", &PayloadWorker::copy, py::arg("count") = 1,
             "Runs Worker::copy_once `count` times in one native call (threads.between in "
             "between), the GIL released or held as the run's gil says. Records its own timing. "
             "Raises xferlab.Stopped once the run is stopped.")
        .def("enter", &PayloadWorker::enter,
             "Binds this worker to the calling thread: captures its ThreadInfo and runs the "
             "backend's per-thread set-up. Done implicitly by the first copy() or barrier().")
        .def("barrier", &PayloadWorker::barrier,
             "Waits at the run's start gate (threads.start) with the GIL released.")
        .def("timed", &PayloadWorker::timed, py::arg("nbytes"), py::arg("label") = py::none(),
             "`with w.timed(nbytes, label):` times the block as one record of this worker (a "
             "copy the payload makes itself, e.g. through CuPy or PyTorch); every CUDA memcpy "
             "the block issues is joined to it (CUPTI). Only on the worker's own thread.")
        .def("verified", &PayloadWorker::verified, py::arg("ok"), py::arg("how"),
             "The payload's own check of the bytes its timed blocks moved: ok=False fails the "
             "run; `how` says what was compared.")
        .def_property_readonly("device", &PayloadWorker::device,
                               "The worker's CUDA device (-1 on the host backend).")
        .def_property_readonly("index", &PayloadWorker::index)
        .def_property_readonly("bytes", &PayloadWorker::bytes)
        .def_property_readonly("copies_done", &PayloadWorker::copies_done)
        .def("records", &PayloadWorker::records, "This worker's records so far, as dicts.")
        .def("thread_info", &PayloadWorker::thread_info,
             "The ThreadInfo captured when the worker entered its thread, as a dict.");

    py::class_<PayloadTimedBlock>(m, "TimedBlock", "`with w.timed(nbytes, label):`")
        .def("__enter__", &PayloadTimedBlock::enter, py::return_value_policy::reference)
        .def("__exit__", &PayloadTimedBlock::exit);

    py::class_<PayloadContext>(m, "Context", "The run a payload's main(ctx) executes.")
        .def("worker", &PayloadContext::worker, py::arg("i"),
             "Worker i (0 <= i < threads); binds it to the calling thread for ctx.barrier().")
        .def("barrier", &PayloadContext::barrier, py::arg("i") = py::none(),
             "ctx.barrier(i) = ctx.worker(i).barrier(); without i, the worker this thread took "
             "with ctx.worker(i).")
        .def("stop_requested", &PayloadContext::stop_requested,
             "True once the run is stopped (timeout, SIGINT) or over.")
        .def("note", &PayloadContext::note, py::arg("text"), "Adds a line to the run's notes.")
        .def("skip", &PayloadContext::skip, py::arg("reason"),
             "Ends the run as skipped with this reason (e.g. a framework that is not "
             "importable); raises xferlab.Stopped, and the run's other threads stop.")
        .def_property_readonly("threads", [](const PayloadContext& c) { return c.worker_count(); })
        .def_property_readonly(
            "repetitions",
            [](const PayloadContext& c) { return c.run().settings.transfer.repetitions; })
        .def_property_readonly(
            "warmup", [](const PayloadContext& c) { return c.run().settings.transfer.warmup; })
        .def_property_readonly("copies",
                               [](const PayloadContext& c) {
                                   return c.run().settings.transfer.warmup +
                                          c.run().settings.transfer.repetitions;
                               })
        .def_property_readonly(
            "bytes", [](const PayloadContext& c) { return c.run().settings.transfer.bytes; })
        .def_property_readonly("gil", &PayloadContext::gil)
        .def_property_readonly(
            "gap_stages",
            [](const PayloadContext& c) { return c.run().settings.threads.gap_stages; })
        .def_property_readonly("run_label",
                               [](const PayloadContext& c) { return c.run().position.label; })
        .def_property_readonly("run_index",
                               [](const PayloadContext& c) { return c.run().position.index; })
        .def_property_readonly("payload", &PayloadContext::payload)
        .def_property_readonly("params", &PayloadContext::params);

    py::class_<PayloadHostBuffer>(m, "HostBuffer", py::buffer_protocol(),
                                  "Host memory (pageable, hugepage, numa:<node>), already touched.")
        .def_buffer([](PayloadHostBuffer& b) {
            return py::buffer_info(b.buffer().data(), 1, py::format_descriptor<uint8_t>::format(),
                                   py::ssize_t(b.buffer().size()));
        })
        .def("__len__", [](PayloadHostBuffer& b) { return b.buffer().size(); })
        .def_property_readonly("nbytes", [](PayloadHostBuffer& b) { return b.buffer().size(); })
        .def_property_readonly("kind", &PayloadHostBuffer::kind);

    // pybind11 keeps the docstring's pointer: the text lives as long as the program.
    static const std::string host_buffer_doc =
        "Allocates and touches host memory: host_buffer(4096), host_buffer(\"64MiB\", " +
        quoted_value(HostMemoryKind::hugepage) + ").";
    m.def(
        "host_buffer",
        [](py::object bytes, const std::string& kind) {
            return std::make_unique<PayloadHostBuffer>(size_argument(bytes, "host_buffer bytes"),
                                                       kind);
        },
        py::arg("bytes"), py::arg("kind") = to_string(HostMemoryKind::pageable),
        host_buffer_doc.c_str());

    m.def(
        "memcpy",
        [](py::object dst, py::object src, py::object nbytes) {
            ContiguousView d(dst, true);
            ContiguousView s(src, false);
            const uint64_t n =
                nbytes.is_none() ? std::min(d.size(), s.size()) : size_argument(nbytes, "nbytes");
            if (n > d.size() || n > s.size())
                throw py::value_error("copy: nbytes " + std::to_string(n) + " exceeds dst (" +
                                      std::to_string(d.size()) + ") or src (" +
                                      std::to_string(s.size()) + ")");
            int64_t t0, t1;
            {
                py::gil_scoped_release release;
                t0 = now_ns();
                std::memcpy(d.data(), s.data(), n);
                t1 = now_ns();
            }
            return t1 - t0;
        },
        py::arg("dst"), py::arg("src"), py::arg("nbytes") = py::none(),
        "memcpy between two buffers with the GIL released; returns its duration in ns. Not "
        "recorded: a free-form helper, not the worker's copy routine.");

    // copy(dst, src, *, stream=None), Engine, Error: the same bindings a user's program gets
    // from the extension module, so that a payload and a program are written alike.
    // Its engines measured where the run traces copies: their DMAs join the w.timed() blocks.
    if (binds_transfer_api()) pyapi::bind_transfer_api(m, &payload_engine_probe);
    // `import xferlab.cupy` / `xferlab.torch`: the package's pure-Python helpers.
    if (const auto dir = xferlab_package_dir(); !dir.empty())
        m.attr("__path__") = py::make_tuple(dir.string()).cast<py::list>();

    m.def("now", &now_ns, "The host clock every record uses (CLOCK_MONOTONIC), in ns.");
    add_gap_mark(m);
    m.def("thread_info", &calling_thread_info,
          "The calling thread's ThreadInfo read from inside it, as a dict (gil_held included; "
          "None where the interpreter has no GIL).");
    m.def("interpreter", &interpreter_info,
          "The calling thread's interpreter as a dict: id (0 for the main interpreter), main, "
          "gil (whether it has one: False in a free-threaded build with the GIL off), "
          "free_threaded (the build), version.");
    m.def(
        "stop_requested",
        []() {
            const auto run = current_run();
            return run != nullptr && (!run->open() || run->stop_requested());
        },
        "True once the current run is stopped (timeout, SIGINT).");

    m.def(
        "_payload_exit", [](int code) { payload_exit(code); }, py::arg("n"),
        "Replaces os._exit: xferlab records the running run as failed before the process ends.");
    py::module_ runner = m.def_submodule("_runner", "The python launcher's helpers (internal).");
    py::exec(kRunnerSource, runner.attr("__dict__"));
}
