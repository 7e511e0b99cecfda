#pragma once
// The CUDA backend's entry points. This header includes no CUDA header, so that the rest of
// xferlab builds without a toolkit; the implementation is compiled only when XFER_HAVE_CUDA.
#include <memory>

#include "backend/backend.hpp"

namespace xfer::cuda {

// Whether a CUDA device answers here, and why not (no driver, no device, version mismatch).
BackendAvailability availability();
// Throws std::runtime_error with availability().reason when no device answers.
std::unique_ptr<Backend> make_backend();

}  // namespace xfer::cuda
