#pragma once
// The one rule for runs that need CUDA where backend "auto" fell back to host.
#include <string>

#include "backend/backend.hpp"
#include "scenario/scenario.hpp"

namespace xfer {

// Why `run` skips `run` rather than running it: `backend` is host because backend "auto" fell
// back to it (`fell_back`: CUDA is unavailable here), and the run has a setting only the cuda
// backend can run (host_needs_cuda: page-locked memory, per-worker contexts, a transfer.path,
// d2d/p2p, a device other than 0). Skipped, as an mpi run outside mpirun is, so that a scenario
// comparing such settings still runs its other runs on a machine without a GPU, CI included.
// "" when the run goes ahead, and always on a host backend that was asked for: its preflight
// refuses such a run (HostBackend::check, with the same reason).
std::string cuda_only_reason(const Run& run, const Backend& backend, bool fell_back);

// How many runs of `plan` need CUDA when its backend resolves to `backend` (the scenario's, or
// the configuration's for "auto"): every run for "cuda", else the runs cuda_only_reason skips
// when "auto" falls back to host (the ones an asked-for host backend refuses). `xferlab list`
// marks scenarios with it.
size_t runs_needing_cuda(const std::vector<Run>& plan, const std::string& backend);

}  // namespace xfer
