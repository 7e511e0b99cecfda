#pragma once
// Interpreter lifetime: one CPython per process, started from an explicit PyConfig, with the
// GIL released on the starting thread so that host threads and Python threads can both take it.
#include <filesystem>
#include <mutex>
#include <vector>

#include "embed/python.hpp"

namespace xfer {

class Interpreter {
  public:
    // Starts CPython (see ensure_interpreter). Throws std::runtime_error when it cannot.
    explicit Interpreter(const std::filesystem::path& payload_dir);
    // At process exit, on the thread that started it: finalizes CPython (which joins the
    // remaining non-daemon Python threads) unless a payload left threads running; then the GIL
    // is taken and kept, so those threads never run again, and finalization is skipped.
    ~Interpreter();
    // The same, earlier: at the end of main, while every library the payloads used (the CUDA
    // runtime that PyTorch or CuPy free their memory through) is still alive. Once only.
    void shutdown();
    Interpreter(const Interpreter&) = delete;
    Interpreter& operator=(const Interpreter&) = delete;

    // Puts `dir` at the front of sys.path once (payloads may import helpers next to them).
    void add_payload_dir(const std::filesystem::path& dir);
    std::vector<std::filesystem::path> payload_dirs() const;

  private:
    void* main_thread_state_ = nullptr;
    bool shut_down_ = false;  // PyThreadState* saved when the GIL was released
    mutable std::mutex mutex_;
    std::vector<std::filesystem::path> payload_dirs_;
};

// Anchors module.cpp in the static library: its PYBIND11_EMBEDDED_MODULE registers `xferlab`
// with the interpreter's table of built-in modules at static initialization.
void link_xferlab_module();

}  // namespace xfer
