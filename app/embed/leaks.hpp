#pragma once
// Python threads a run could not stop: kept so that the process can tell, at exit, whether
// the interpreter may be finalized. Every function here expects the GIL to be held.
#include <pybind11/pybind11.h>

namespace xfer {

// Remembers `threads` (a list of threading.Thread) as left running by run `run`: here, so that
// the process knows at exit, and as stray threads that every later run looks for.
void remember_leaked_threads(const pybind11::list& threads, int run);
// True when one of the remembered threads is still alive, or a sub-interpreter was left behind
// with threads running (remember_leaked_subinterpreter).
bool leaked_threads_alive_with_gil();
// The same for the calling thread's interpreter alone.
bool leaked_threads_alive_in_this_interpreter();
// A sub-interpreter of launcher python-subinterp could not be ended: its payload left threads
// running. Neither it nor the main interpreter may be finalized then (finalizing would wait
// for those threads, or fail on them). Any thread, GIL or not.
void remember_leaked_subinterpreter();

}  // namespace xfer
