#pragma once
#include <memory>

#include "launch/launcher.hpp"

namespace xfer {

// Launcher "process": each worker in its own process (`xferlab worker`, spawned from this
// executable), with its own CUDA context; with a payload, the payload runs in each process.
std::unique_ptr<Launcher> make_process_launcher();

}  // namespace xfer
