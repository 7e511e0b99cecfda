#pragma once
#include "launch/launcher.hpp"

namespace xfer {

// Every launcher built into this binary: host, openmp, python, host+gil, process
// (and mpi in a build with MPI).
LauncherRegistry make_launcher_registry();

}  // namespace xfer
