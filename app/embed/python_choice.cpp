// Which Python the embedded interpreter is configured from (python.executable, else the one
// CMake found at build time), and whether a given interpreter can be embedded by this build.
#include <Python.h>
#include <fmt/format.h>
#include <unistd.h>

#include <fstream>
#include <mutex>

#include "embed/python.hpp"

namespace xfer {
namespace fs = std::filesystem;
namespace {

std::mutex g_choice_mutex;
std::optional<PythonChoice> g_choice;  // unset: the build's interpreter

// "3.12" from a pyvenv.cfg next to `executable` (bin/ or the folder above it), where CPython's
// own path calculation looks for it; empty when there is none or it names no version.
std::string venv_version(const fs::path& executable) {
    for (const fs::path& dir : {executable.parent_path(), executable.parent_path().parent_path()}) {
        std::ifstream in(dir / "pyvenv.cfg");
        if (!in) continue;
        std::string line;
        while (std::getline(in, line)) {
            const auto eq = line.find('=');
            if (eq == std::string::npos) continue;
            std::string key = line.substr(0, eq);
            key.erase(key.find_last_not_of(" \t") + 1);
            if (key != "version" && key != "version_info") continue;
            std::string value = line.substr(line.find_first_not_of(" \t", eq + 1));
            const auto second_dot = value.find('.', value.find('.') + 1);
            return value.substr(0, second_dot);
        }
        return "";
    }
    return "";
}

}  // namespace

fs::path build_python_executable() { return XFER_PYTHON_EXECUTABLE; }

std::string embedded_python_version() {
    return fmt::format("{}.{}", PY_MAJOR_VERSION, PY_MINOR_VERSION);
}

bool embedded_python_free_threaded() {
#ifdef Py_GIL_DISABLED
    return true;
#else
    return false;
#endif
}

std::string python_executable_problem(const fs::path& executable) {
    std::error_code ec;
    if (!fs::exists(executable, ec)) return "does not exist";
    if (fs::is_directory(executable, ec))
        return "is a folder, not an interpreter (name its bin/python3)";
    if (::access(executable.c_str(), X_OK) != 0) return "is not executable";
    const std::string version = venv_version(executable);
    if (!version.empty() && version != embedded_python_version())
        return fmt::format(
            "is in a virtual environment of Python {} (its pyvenv.cfg), but this xferlab embeds "
            "Python {}: build xferlab with -DPython_EXECUTABLE={} instead",
            version, embedded_python_version(), executable.string());
    return "";
}

fs::path python_lib_dir() {
    if (const char* dir = std::getenv("XFERLAB_PYTHON_LIB"); dir && *dir) return fs::path(dir);
    return fs::path(XFER_SOURCE_DIR) / "python";
}

fs::path xferlab_package_dir() {
    std::error_code ec;
    const fs::path dir = python_lib_dir() / "xferlab";
    return fs::is_directory(dir, ec) ? dir : fs::path();
}

void choose_python(PythonChoice choice) {
    std::lock_guard lock(g_choice_mutex);
    g_choice = std::move(choice);
}

PythonChoice chosen_python() {
    std::lock_guard lock(g_choice_mutex);
    if (g_choice) return *g_choice;
    // The build's interpreter may be gone (a venv deleted since): then CPython starts from
    // libpython's own prefix, as it did before xferlab configured an executable.
    std::error_code ec;
    const fs::path built = build_python_executable();
    if (built.empty() || !fs::exists(built, ec))
        return {{}, "build (" + built.string() + " no longer exists)"};
    return {built, "build"};
}

}  // namespace xfer
