#pragma once
#include <memory>

#include "launch/launcher.hpp"

namespace xfer {

// Launcher "openmp": the workers are the threads of one `omp parallel` region of N threads,
// the calling thread being worker 0 as in any OpenMP program. Each applies signal mask, policy
// and (unless OMP_PROC_BIND / OMP_PLACES bind it) affinity, then runs run_worker_loop. The
// calling thread's mask, affinity, policy and name are restored afterwards. Stack size is
// OpenMP's own (OMP_STACKSIZE, read when libgomp loads): a note says so when one was asked.
std::unique_ptr<Launcher> make_openmp_launcher();

}  // namespace xfer
