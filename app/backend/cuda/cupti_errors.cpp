// CUPTI's error text, apart from the runtime's (cuda_errors.cpp) so that code which never calls
// CUPTI (the staging engine in the Python module) links no libcupti.
#include "backend/cuda/cupti_errors.hpp"

#include <stdexcept>
#include <string>

#include "backend/cuda/cupti_check.hpp"
#include "engine/cuda/cuda_errors.hpp"

namespace xfer::cuda {

std::string cupti_error_message(int code, std::string_view call) {
    auto res = static_cast<CUptiResult>(code);
    const char* name = nullptr;
    const char* text = nullptr;
    if (cuptiGetResultString(res, &name) != CUPTI_SUCCESS || !name) name = "CUPTI_ERROR_?";
    if (cuptiGetErrorMessage(res, &text) != CUPTI_SUCCESS || !text) text = name;
    std::string out(call_function_name(call));
    out += " failed: ";
    out += text;
    if (std::string_view(text) != name) {
        out += " (";
        out += name;
        out += ")";
    }
    return out;
}

void throw_cupti_error(CUptiResult res, const char* call) {
    throw std::runtime_error(cupti_error_message(int(res), call));
}

}  // namespace xfer::cuda
