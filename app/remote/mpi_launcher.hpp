#pragma once
#include <memory>

#include "launch/launcher.hpp"

namespace xfer {

// Launcher "mpi": `mpirun -n N xferlab run FILE`. Worker i runs on rank i % N (on its own
// pthread, or in the payload when the run has one); rank 0 gathers every rank's records,
// converted to its clock by measured offsets, and writes the one report. Outside mpirun, or in
// a build without MPI, its runs are skipped and say why.
std::unique_ptr<Launcher> make_mpi_launcher();

}  // namespace xfer
