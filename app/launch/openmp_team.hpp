#pragma once
// Starting an OpenMP team where the system may refuse its threads. libgomp ends the whole
// process when it cannot create a thread of a team ("libgomp: Thread creation failed", exit 1):
// under `ulimit -d 20000` an openmp run took xferlab down mid-plan with its run unrecorded
// (issue 54, item 9). So before a region needs threads that libgomp does not hold yet, as many
// threads as it would create are started here first, with the stack libgomp gives its threads
// (OMP_STACKSIZE or GOMP_STACKSIZE, else the default), all alive at once as a team's are; when
// one cannot start, the run fails with the reason instead. The probe's stacks stay in glibc's
// cache of thread stacks when it ends, where libgomp's threads find them at once.
#include <string>

namespace xfer {

// "" when a team of `n` threads (the calling thread and n - 1 more) can start now, else why not.
std::string openmp_team_problem(int n);

// A region of `n` threads ran: libgomp now keeps n - 1 threads for the next region, so a team no
// larger than that needs no probe.
void openmp_team_started(int n);

// The stack libgomp gives its threads as the environment sets it (OMP_STACKSIZE, then
// GOMP_STACKSIZE: a number of KiB, or with a suffix B, K, M or G); 0 when neither is set or
// readable (the default pthread stack then).
size_t openmp_stack_size();

}  // namespace xfer
