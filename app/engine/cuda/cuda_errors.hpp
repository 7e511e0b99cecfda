#pragma once
// Error text for CUDA runtime failures (CUPTI's: backend/cuda/cupti_errors.hpp). No CUDA header
// here, so that tests and the rest of xferlab can format and match these messages without the
// toolkit's include paths.
#include <string>
#include <string_view>

namespace xfer::cuda {

// "cudaMemcpy failed on device 0 (worker 2): out of memory (cudaErrorMemoryAllocation)".
// `call` may be the whole expression text ("cudaMemcpy(dst, src, n, kind)"): only the function
// name before '(' is kept. device < 0 leaves out "on device N"; worker < 0 says "(main thread)"
// when a device is named, nothing otherwise.
std::string cuda_error_message(int code, std::string_view call, int device, int worker);

// "cudaMemcpy" of "::cudaMemcpy(dst, src, n, kind)": the function a call expression names.
std::string_view call_function_name(std::string_view call);

}  // namespace xfer::cuda
