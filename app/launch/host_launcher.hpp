#pragma once
#include <memory>

#include "launch/launcher.hpp"

namespace xfer {

// Launcher "host": one pthread per worker, created with the run's stack and guard size; each
// thread names itself xfer-host-<i>, applies signal mask, affinity and policy, then runs
// run_worker_loop. A failing worker is recorded in ctx.errors and aborts the start gate.
std::unique_ptr<Launcher> make_host_launcher();

}  // namespace xfer
