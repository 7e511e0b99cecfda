#include "remote/sibling_executables.hpp"

#include <unistd.h>

#include <cstdlib>

namespace xfer {
namespace fs = std::filesystem;
namespace {

// `what` says what the sibling is built against; `option` the CMake option that builds it.
SiblingExecutable find_sibling(const std::string& name, const std::string& what,
                               const std::string& option) {
    SiblingExecutable s{name, sibling_dir() / name, ""};
    std::error_code ec;
    std::string why;
    if (!fs::exists(s.path, ec))
        why = "there is none at " + s.path.string();
    else if (::access(s.path.c_str(), X_OK) != 0)
        why = s.path.string() + " is not executable";
    if (!why.empty())
        s.problem = name + " (xferlab built against " + what + ") is needed, and " + why +
                    ": tools/bootstrap.sh builds it (tools/build-free-threaded-python.sh, "
                    "tools/fetch-pybind11.sh, then cmake " +
                    option + "); $XFERLAB_SIBLING_DIR names another folder";
    return s;
}

}  // namespace

fs::path sibling_dir() {
    if (const char* dir = std::getenv("XFERLAB_SIBLING_DIR"); dir && *dir) return dir;
    std::error_code ec;
    const fs::path self = fs::read_symlink("/proc/self/exe", ec);
    return ec ? fs::path(".") : self.parent_path();
}

fs::path self_executable() {
    std::error_code ec;
    const fs::path self = fs::read_symlink("/proc/self/exe", ec);
    // A rebuilt or removed binary reads as "PATH (deleted)": only the link still starts it.
    if (ec || !fs::exists(self, ec) || ec) return "/proc/self/exe";
    return self;
}

SiblingExecutable free_threaded_sibling() {
    return find_sibling("xferlab-ft", "a free-threaded CPython 3.13, python3.13t",
                        "-DXFER_FREE_THREADED_PYTHON=<prefix>/bin/python3.13t");
}

SiblingExecutable gil_sibling() {
    return find_sibling("xferlab-py313", "CPython 3.13 with its GIL",
                        "-DXFER_SUBINTERPRETER_PYTHON=<prefix>/bin/python3.13");
}

}  // namespace xfer
