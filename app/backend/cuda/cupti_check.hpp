#pragma once
// Checking CUPTI calls (the harness's tracer; internal to backend/cuda): a failure becomes a
// std::runtime_error that names the call. The runtime's checks: engine/cuda/cuda_check.hpp.
#include <cupti.h>

#include "engine/cuda/cuda_check.hpp"

namespace xfer::cuda {

[[noreturn]] void throw_cupti_error(CUptiResult res, const char* call);

inline void check_cupti(CUptiResult res, const char* call) {
    if (res != CUPTI_SUCCESS) throw_cupti_error(res, call);
}

}  // namespace xfer::cuda

#define XFER_CUPTI(expr) ::xfer::cuda::check_cupti((expr), #expr)
