#pragma once
// transfer.path against the rest of the transfer (CUDA backend's check; no CUDA header, so the
// messages are tested without a device).
#include "settings/specs.hpp"

namespace xfer {

// Throws std::runtime_error naming what does not fit: a path other than "driver" on a
// direction without a host side, "register" on page-locked memory, "staged" with per-worker
// contexts, an explicit staging.chunk larger than the copy.
void check_transfer_path(const TransferSpec& t);

}  // namespace xfer
