#pragma once
#include "launch/launcher.hpp"

namespace xfer {

// Every launcher built into this binary: host, openmp, python, host+gil, process, mpi,
// python-ft, python-subinterp (mpi runs are skipped, saying why, outside mpirun or in a build
// without MPI; python-ft and python-subinterp runs where no executable has the interpreter
// they need).
LauncherRegistry make_launcher_registry();

}  // namespace xfer
