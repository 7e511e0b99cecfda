#pragma once
// The sibling executables: xferlab built from this same tree against another CPython (by the
// CMake options of cmake/sibling_builds.cmake), found next to this executable or in
// $XFERLAB_SIBLING_DIR. One process links one libpython, so the launchers that run the payload
// in another interpreter run their workers in a worker process of one of these.
#include <filesystem>
#include <string>

namespace xfer {

struct SiblingExecutable {
    std::string name;            // "xferlab-ft"
    std::filesystem::path path;  // where it is, or would be
    std::string problem;         // why it cannot run workers; empty when it can
};

// xferlab-ft, against a free-threaded CPython 3.13 (python3.13t): launcher python-ft.
SiblingExecutable free_threaded_sibling();
// xferlab-py313, against CPython 3.13 with its GIL: launcher python-subinterp where this
// xferlab's own Python cannot run sub-interpreters with their own GIL.
SiblingExecutable gil_sibling();

// The folder searched: $XFERLAB_SIBLING_DIR when set and not empty, else this executable's.
std::filesystem::path sibling_dir();
// This executable's path, for starting its own worker processes: /proc/self/exe resolved, so that
// a worker's process is named after the file (its comm, which `xferlab threads` and the thread
// records show) rather than "exe"; /proc/self/exe itself where the file is gone or unreadable.
std::filesystem::path self_executable();

}  // namespace xfer
