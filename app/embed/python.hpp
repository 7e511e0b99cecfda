#pragma once
// The embedded-Python side of xferlab as the rest of the program sees it. No pybind11 or
// Python.h here: the CLI and the tests include this without the interpreter's headers.
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "launch/launcher.hpp"
#include "results/record.hpp"
#include "system/thread_info.hpp"

namespace xfer {

class Interpreter;  // embed/interpreter.hpp

// Which Python the interpreter is configured from: PyConfig.executable is set to `executable`,
// so that CPython's path calculation finds a virtual environment's pyvenv.cfg and `site` adds
// that environment's site-packages (docs/payload-api.md#which-python).
struct PythonChoice {
    std::filesystem::path executable;  // empty: libpython's own prefix
    std::string origin;                // "build", or "FILE:LINE:COLUMN" of python.executable
};

// The interpreter CMake found when xferlab was built (-DPython_EXECUTABLE).
std::filesystem::path build_python_executable();
// "3.11": the version of the libpython this build embeds.
std::string embedded_python_version();
// Whether that libpython is a free-threaded build (python3.13t: no GIL, PEP 703).
bool embedded_python_free_threaded();
// Why this build cannot run each worker in a sub-interpreter with its own GIL (PEP 684: an
// embedded Python 3.12 or later with a GIL, pybind11 3 or later); empty when it can.
std::string subinterpreters_unsupported();
// Why `executable` cannot configure the embedded interpreter ("does not exist", a virtual
// environment of another Python version, ...); empty when it can.
std::string python_executable_problem(const std::filesystem::path& executable);
// The choice for this process (python.executable of the config; a worker process gets its
// parent's). Only the first start of the interpreter reads it: call it before.
// xferlab's own Python code: $XFERLAB_PYTHON_LIB, else <source tree>/python: the figures'
// package xferlab_plots, and the pure-Python part of the package xferlab (cupy.py, torch.py).
std::filesystem::path python_lib_dir();
// python_lib_dir()/xferlab when it is there (empty otherwise): the built-in module `xferlab`
// takes it as its __path__, so that a payload's `import xferlab.cupy` finds the helpers.
std::filesystem::path xferlab_package_dir();

void choose_python(PythonChoice choice);
// What choose_python set, else the build's interpreter (when it still exists).
PythonChoice chosen_python();

// Starts CPython once per process (later calls only add `payload_dir` to sys.path). Call it
// from the main thread: the interpreter is finalized by the thread that started it, at exit.
// Python installs no signal handlers; sys.path holds the payload directories and the standard
// library, never the current directory. Throws std::runtime_error when Python cannot start.
Interpreter& ensure_interpreter(const std::filesystem::path& payload_dir);

// Adds "python" (payload threads) and "host+gil" (host threads that hand the GIL off around
// each copy as a Python thread does).
void register_python_launchers(LauncherRegistry& registry);

// Starts one threading.Thread, reads its ThreadInfo from inside it, joins it. What a Python
// thread gets by default: stack, guard, signal mask, affinity, policy (mimic = "python").
ThreadInfo python_thread_info(const std::filesystem::path& payload_dir = {});

// True when a run ended with Python threads still running that have not finished since. The
// interpreter cannot be finalized then: write the results and end the process with _exit.
// (Without that, xferlab keeps the GIL at exit so that those threads never run again, and
// skips finalization.)
bool python_threads_leaked();

// Finalizes the interpreter now, if one was started (main calls it when the command is done):
// at exit, static destructors and the CUDA runtime's own exit handlers would run in an order
// that lets a framework's finalizers (PyTorch freeing device memory) call into a runtime already
// torn down. Idempotent; the interpreter's destructor does nothing afterwards.
void shutdown_python();

// A payload's os._exit(n) calls `handler(n)` instead of ending the process on the spot, so
// that xferlab can record the run as failed and write what it has; the handler then ends the
// process itself. An empty handler (the default) lets os._exit end the process at once.
void set_payload_exit_handler(std::function<void(int)> handler);

// The interpreter as started: version, executable, prefix and base_prefix, the site-packages
// in sys.path, sys.path, signal handlers, and what it was configured from (for `devices`,
// results.json's host and tests). Before it starts: {"started": false} and the choice.
nlohmann::json python_description();

// What the figure code (python/xferlab_plots, run in this interpreter with matplotlib's
// Agg backend) is asked to draw.
struct PlotRequest {
    std::filesystem::path lib_dir;  // the folder holding the xferlab_plots package
    std::filesystem::path out_dir;  // exists
    std::string format = "png";     // png | svg
    std::string prefix;             // before every file name: "seed." -> seed.timeline.png
    std::vector<std::string> runs;  // runs to draw, by index or label; empty: every run
};

struct PlotOutcome {
    enum class Status { drawn, bad_input, missing_dependency, failed };
    Status status = Status::failed;
    std::string message;  // why not drawn: one line, except a bug's traceback (failed)
    std::vector<std::filesystem::path> files;
    std::vector<std::string> notes;  // runs left out, copies merged or sampled, matplotlib's words
};

// Each run's records, in the order of the runs of the results.json text they go with.
using RunRecords = std::vector<std::vector<Record>>;

// Draws every figure of `results_json` (the text of a results.json, its runs' "analysis"
// included) into request.out_dir, each run's copies taken from `records` (the text's own
// "records" are not read). The figures get only the few fields they draw, as one compact column
// per field (8 bytes or 1 a copy): the records as results.json text and Python dicts took about
// 3 KB each. Each run's records are freed once its columns are made. Starts the interpreter
// when needed; never throws.
PlotOutcome draw_plots(const std::string& results_json, RunRecords records,
                       const PlotRequest& request);

}  // namespace xfer
