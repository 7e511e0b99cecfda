// One CPython per process. Started from an explicit PyConfig (isolated: no PYTHON* variables,
// no user site, no script directory or current directory in sys.path, no signal handlers), so
// that what a payload runs in does not depend on the shell xferlab was started from. Its
// executable is the chosen interpreter (python_choice.cpp): without one, CPython would take
// the first `python3` on PATH as sys.executable and never see a virtual environment.
#include "embed/interpreter.hpp"

#include <pybind11/embed.h>

#include <algorithm>
#include <stdexcept>
#include <thread>

#include "backend/gil_probe.hpp"
#include "embed/interpreter_lock.hpp"
#include "embed/interpreter_setup.hpp"
#include "embed/leaks.hpp"

namespace py = pybind11;

namespace xfer {
namespace {

std::thread::id g_owner;  // the thread that started the interpreter (it must finalize it)

}  // namespace

Interpreter::Interpreter(const std::filesystem::path& payload_dir) {
    link_xferlab_module();
    PyConfig config;
    // Isolated: ignores PYTHONPATH/PYTHONHOME & co., no user site-packages, safe_path (neither
    // the current directory nor a script directory is put in front of sys.path).
    PyConfig_InitIsolatedConfig(&config);
    // SIGINT stays with xferlab (it stops the run between copies); Python installs nothing.
    config.install_signal_handlers = 0;
    // getpath looks for pyvenv.cfg next to the executable: a venv's bin/python3 makes sys.prefix
    // the venv and lets `site` add its site-packages (and, when the venv says so, the base's).
    const PythonChoice choice = chosen_python();
    if (!choice.executable.empty()) {
        PyStatus status =
            PyConfig_SetBytesString(&config, &config.executable, choice.executable.c_str());
        if (PyStatus_Exception(status)) {
            PyConfig_Clear(&config);
            throw std::runtime_error("starting the embedded Python failed: cannot use " +
                                     choice.executable.string() + " as its executable");
        }
    }
    py::initialize_interpreter(&config, 0, nullptr, /*add_program_dir_to_path=*/false);
    g_owner = std::this_thread::get_id();
    // The device tracer asks, inside a framework's copy call, whether the thread holds the GIL.
    interpreter_has_gil();  // the probe answers -1 (no GIL) in a free-threaded build
    set_gil_probe(&gil_probe_answer);
    set_up_interpreter({});
    // Release the GIL: from now on every thread (this one included) takes it when it needs it.
    main_thread_state_ = PyEval_SaveThread();
    add_payload_dir(payload_dir);
}

Interpreter::~Interpreter() { shutdown(); }

void Interpreter::shutdown() {
    if (shut_down_) return;
    shut_down_ = true;
    if (!Py_IsInitialized() || std::this_thread::get_id() != g_owner) return;
    set_gil_probe(nullptr);
    PyEval_RestoreThread(static_cast<PyThreadState*>(main_thread_state_));
    bool leaked = true;
    try {
        leaked = leaked_threads_alive_with_gil();
    } catch (...) {
    }
    // Py_Finalize would join a thread that may never end. Keep the GIL instead: the leaked
    // threads block on it and never touch memory freed while the process exits.
    if (leaked) return;
    py::finalize_interpreter();
}

void Interpreter::add_payload_dir(const std::filesystem::path& dir) {
    if (dir.empty()) return;
    std::error_code ec;
    auto absolute = std::filesystem::weakly_canonical(std::filesystem::absolute(dir), ec);
    if (ec) absolute = std::filesystem::absolute(dir);
    std::lock_guard lock(mutex_);
    for (const auto& known : payload_dirs_)
        if (known == absolute) return;
    payload_dirs_.push_back(absolute);
    py::gil_scoped_acquire gil;
    py::list path = py::module_::import("sys").attr("path");
    path.insert(0, absolute.string());
}

std::vector<std::filesystem::path> Interpreter::payload_dirs() const {
    std::lock_guard lock(mutex_);
    return payload_dirs_;
}

namespace {
Interpreter* g_instance = nullptr;
}

Interpreter& ensure_interpreter(const std::filesystem::path& payload_dir) {
    static Interpreter instance(payload_dir);
    g_instance = &instance;
    instance.add_payload_dir(payload_dir);
    return instance;
}

void shutdown_python() {
    if (g_instance) g_instance->shutdown();
}

namespace {

nlohmann::json describe_choice() {
    const PythonChoice choice = chosen_python();
    const std::string subinterpreters = subinterpreters_unsupported();
    return {{"executable", choice.executable.string()},
            {"origin", choice.origin},
            {"embedded_version", embedded_python_version()},
            {"free_threaded", embedded_python_free_threaded()},
            // Whether launcher python-subinterp can run its workers in this executable.
            {"subinterpreters", subinterpreters.empty() ? "supported" : subinterpreters}};
}

// The entries of sys.path that `site` added as site-packages (a venv's first). GIL held.
nlohmann::json site_packages_in_path(const py::module_& sys) {
    py::list site_dirs = py::module_::import("site").attr("getsitepackages")();
    std::vector<std::string> known;
    for (auto d : site_dirs) known.push_back(d.cast<std::string>());
    nlohmann::json out = nlohmann::json::array();
    for (auto entry : sys.attr("path")) {
        const auto text = entry.cast<std::string>();
        if (std::find(known.begin(), known.end(), text) != known.end()) out.push_back(text);
    }
    return out;
}

}  // namespace

nlohmann::json python_description() {
    if (!Py_IsInitialized()) return {{"started", false}, {"configured", describe_choice()}};
    py::gil_scoped_acquire gil;
    auto sys = py::module_::import("sys");
    nlohmann::json out;
    out["started"] = true;
    out["configured"] = describe_choice();
    out["version"] = sys.attr("version").cast<std::string>();
    out["executable"] = sys.attr("executable").cast<std::string>();
    out["prefix"] = sys.attr("prefix").cast<std::string>();
    out["base_prefix"] = sys.attr("base_prefix").cast<std::string>();
    out["virtual_environment"] = out["prefix"] != out["base_prefix"];
    out["site_packages"] = site_packages_in_path(sys);
    out["pybind11"] = PYBIND11_TOSTRING(PYBIND11_VERSION_MAJOR) "." PYBIND11_TOSTRING(
        PYBIND11_VERSION_MINOR) "." PYBIND11_TOSTRING(PYBIND11_VERSION_PATCH);
    out["sys_path"] = nlohmann::json::array();
    for (auto entry : sys.attr("path")) out["sys_path"].push_back(entry.cast<std::string>());
    auto flags = sys.attr("flags");
    out["isolated"] = flags.attr("isolated").cast<int>() != 0;
    // SIGINT's handler is Python's default_int_handler only when Python installed handlers.
    // Importing `signal` would install it where SIGINT is still SIG_DFL (the module does that
    // on import even with install_signal_handlers = 0), and Ctrl-C would then be swallowed by a
    // command that never runs Python code again: ask only when something imported it already.
    // Not imported: Python installed nothing (the interpreter starts without handlers).
    auto modules = sys.attr("modules");
    bool python_handler = false;
    if (modules.contains("signal")) {
        auto signal = modules["signal"];
        python_handler = signal.attr("getsignal")(signal.attr("SIGINT"))
                             .is(signal.attr("default_int_handler"));
    }
    out["python_signal_handlers"] = python_handler;
    out["switch_interval_s"] = sys.attr("getswitchinterval")().cast<double>();
    return out;
}

}  // namespace xfer
