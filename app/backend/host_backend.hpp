#pragma once
#include <memory>
#include <string>

#include "backend/backend.hpp"
#include "memory/host_buffer.hpp"

namespace xfer {

// Host backend: destination and source are host memory, the copy is memcpy. Directions are
// modelled on the host (h2d: the host-memory kind is the source; d2h: the destination).
//
// Who touches which page first (transfer.first_touch), the source always holding the worker's
// pattern before the first copy:
//   main   - prepare() on the main thread writes the source and touches the destination;
//   worker - attach_thread() on the worker's thread writes the source and touches the
//            destination; prepare() only allocates;
//   none   - attach_thread() writes the source (data must exist to be copied: an untouched
//            source would be read from the shared zero page), nobody touches the destination:
//            the first (warm-up) copy faults its pages in, on the worker's thread, timed.
// poison_destination() does not touch a destination that has not been written yet: it is
// zero from allocation (calloc / fresh anonymous mapping), which no pattern byte is.
//
// can_run: a setting only the cuda backend can run (host_needs_cuda) is refused where the host
// backend was asked for, with a hint; where it stands in for cuda (`standing_in`: backend
// "auto" fell back to it because CUDA is unavailable here) such a run is skipped instead, so
// that a scenario comparing such settings still runs its other runs on a machine without a
// GPU, CI included. Host memory this machine lacks (a NUMA node, libnuma) is refused either way.
std::unique_ptr<Backend> make_host_backend(bool standing_in = false);

// The first setting of `t` that only the cuda backend can run, named with its value and why
// ("transfer.host_memory = \"pinned\" needs the cuda backend (page-locked memory is allocated
// by CUDA)"); "" when the host backend can run `t`. The reason its can_run refuses or skips with.
std::string host_needs_cuda(const TransferSpec& t);

// The buffers behind a host-backend transfer, for tests and diagnostics (where did the pages
// land?); nullptr when `transfer` is not the host backend's.
const HostBuffer* host_source(const WorkerTransfer& transfer);
const HostBuffer* host_destination(const WorkerTransfer& transfer);

}  // namespace xfer
