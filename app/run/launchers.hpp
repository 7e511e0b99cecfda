#pragma once
#include "launch/launcher.hpp"

namespace xfer {

// Every launcher built into this binary: host, openmp, python, host+gil, process, mpi
// (mpi runs are skipped, saying why, outside mpirun or in a build without MPI).
LauncherRegistry make_launcher_registry();

}  // namespace xfer
