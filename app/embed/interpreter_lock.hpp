#pragma once
// The interpreter's lock as xferlab reads it, one way in every build: a GIL shared by the
// process's one interpreter, a GIL per sub-interpreter (PEP 684), or none (a free-threaded
// build, PEP 703).
#include <string>

namespace xfer {

// Whether the calling thread holds its interpreter's GIL, i.e. has a thread state attached.
// Safe from any thread, GIL or not. (From 3.12 PyGILState_Check is not used: it knows only the
// main interpreter, and once a sub-interpreter exists it answers 1 for every thread.)
bool this_thread_holds_interpreter_lock();

// Whether the calling thread's interpreter has a GIL at all: false in a free-threaded build
// while its GIL is off (sys._is_gil_enabled(); importing an extension module that does not
// declare free-threading support turns it on). Call with a thread state attached.
bool interpreter_has_gil();

// The device tracer's probe (backend/gil_probe.hpp): 1 held, 0 not held, -1 no GIL (a
// free-threaded interpreter whose GIL was off when interpreter_has_gil() last looked).
int gil_probe_answer();

// "CPython 3.13.5 (free-threaded build)", "CPython 3.11.2": the embedded interpreter, for notes.
std::string interpreter_description();

}  // namespace xfer
