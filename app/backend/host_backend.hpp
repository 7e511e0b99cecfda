#pragma once
#include <memory>

#include "backend/backend.hpp"

namespace xfer {

// Host backend: destination and source are host memory, the copy is memcpy. Directions are
// modelled on the host (h2d: the host-memory kind is the source; d2h: the destination).
std::unique_ptr<Backend> make_host_backend();

}  // namespace xfer
