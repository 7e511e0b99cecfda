#pragma once
// Python threads a run could not stop: kept so that the process can tell, at exit, whether
// the interpreter may be finalized. Every function here expects the GIL to be held.
#include <pybind11/pybind11.h>

namespace xfer {

// Remembers `threads` (a list of threading.Thread) as left running by run `run`: here, so that
// the process knows at exit, and as stray threads that every later run looks for.
void remember_leaked_threads(const pybind11::list& threads, int run);
// True when one of the remembered threads is still alive.
bool leaked_threads_alive_with_gil();

}  // namespace xfer
