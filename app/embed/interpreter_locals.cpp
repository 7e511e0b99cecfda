#include "embed/interpreter_locals.hpp"

#include <map>
#include <mutex>
#include <utility>

#include "embed/run_state.hpp"

namespace xfer {
namespace {

struct Locals {
    std::shared_ptr<RunState> run;
    PyObject* stopped = nullptr;  // a reference of ours
};

std::mutex g_mutex;

std::map<PyInterpreterState*, Locals>& all_locals() {
    static auto* locals = new std::map<PyInterpreterState*, Locals>;  // outlives every interpreter
    return *locals;
}

}  // namespace

std::shared_ptr<RunState> current_run() {
    PyInterpreterState* interpreter = PyInterpreterState_Get();
    std::lock_guard lock(g_mutex);
    auto it = all_locals().find(interpreter);
    return it == all_locals().end() ? nullptr : it->second.run;
}

void set_current_run(std::shared_ptr<RunState> run) {
    PyInterpreterState* interpreter = PyInterpreterState_Get();
    std::shared_ptr<RunState> previous;  // released outside the lock
    std::lock_guard lock(g_mutex);
    previous = std::exchange(all_locals()[interpreter].run, std::move(run));
}

PyObject* stopped_exception_type() {
    PyInterpreterState* interpreter = PyInterpreterState_Get();
    std::lock_guard lock(g_mutex);
    auto it = all_locals().find(interpreter);
    return it == all_locals().end() ? nullptr : it->second.stopped;
}

void set_stopped_exception_type(PyObject* type) {
    PyInterpreterState* interpreter = PyInterpreterState_Get();
    Py_XINCREF(type);
    PyObject* previous;
    {
        std::lock_guard lock(g_mutex);
        previous = std::exchange(all_locals()[interpreter].stopped, type);
    }
    Py_XDECREF(previous);
}

void forget_this_interpreter() {
    PyInterpreterState* interpreter = PyInterpreterState_Get();
    Locals gone;
    {
        std::lock_guard lock(g_mutex);
        auto it = all_locals().find(interpreter);
        if (it == all_locals().end()) return;
        gone = std::move(it->second);
        all_locals().erase(it);
    }
    Py_XDECREF(gone.stopped);  // the interpreter's own object, with its lock held
}

}  // namespace xfer
