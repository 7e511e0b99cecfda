#pragma once
// The steps around a launch that every place running workers shares: the plan runner (in
// process) and each worker process or MPI rank (cli/local_workers.cpp).
#include <memory>
#include <string>
#include <vector>

#include "backend/backend.hpp"
#include "launch/worker.hpp"
#include "scenario/scenario.hpp"

namespace xfer {

// Allocation and first touch (per policy) for the workers `indices` (indices in the whole run),
// destinations poisoned so that a copy that did not happen cannot verify. Never timed. Throws
// std::runtime_error "preparing buffers for worker N failed: ...".
std::vector<std::unique_ptr<Worker>> prepare_workers(Backend& backend, const Run& run,
                                                     const std::vector<int>& indices);

// The backend's end of a run: device timestamps joined into `records`, the backend's notes
// added (a failure to get device timestamps is a note, not an error).
void end_backend_run(Backend& backend, std::vector<Record>& records,
                     std::vector<std::string>& notes);

// One message per worker whose destination does not hold the source's bytes.
std::vector<std::string> verification_failures(std::vector<std::unique_ptr<Worker>>& workers);

}  // namespace xfer
