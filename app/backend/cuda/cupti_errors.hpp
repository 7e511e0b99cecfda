#pragma once
// Error text for CUPTI failures (the harness's tracer). No CUDA header here, so that tests can
// match these messages without the toolkit's include paths.
#include <string>
#include <string_view>

namespace xfer::cuda {

// "cuptiActivityEnable failed: <description> (CUPTI_ERROR_...)".
std::string cupti_error_message(int code, std::string_view call);

}  // namespace xfer::cuda
