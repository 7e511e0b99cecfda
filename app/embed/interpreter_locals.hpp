#pragma once
// What xferlab keeps for each Python interpreter of the process: the run it executes now and
// its xferlab.Stopped type. A process may hold several interpreters (launcher python-subinterp:
// one per worker, each with its own GIL), and in a free-threaded build there is no GIL to order
// these at all: a mutex does, keyed by the calling thread's interpreter.
//
// Every function here needs a thread state attached to the calling thread (the GIL held, or in
// a free-threaded build the thread attached), as any call from Python has.
#include <Python.h>

#include <memory>

namespace xfer {

class RunState;

// The run the calling thread's interpreter executes now (null between runs).
std::shared_ptr<RunState> current_run();
void set_current_run(std::shared_ptr<RunState> run);

// xferlab.Stopped of the calling thread's interpreter, created by its `xferlab` module
// (a borrowed reference; null before the module was imported there).
PyObject* stopped_exception_type();
// Keeps a reference to `type` for the calling thread's interpreter.
void set_stopped_exception_type(PyObject* type);

// Drops what is kept for the calling thread's interpreter, before that interpreter is ended.
void forget_this_interpreter();

}  // namespace xfer
