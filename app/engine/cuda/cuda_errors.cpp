#include "engine/cuda/cuda_errors.hpp"

#include <stdexcept>
#include <string>

#include "engine/cuda/cuda_check.hpp"

namespace xfer::cuda {
std::string_view call_function_name(std::string_view call) {
    auto paren = call.find('(');
    if (paren != std::string_view::npos) call = call.substr(0, paren);
    while (!call.empty() && (call.back() == ' ' || call.back() == '\t')) call.remove_suffix(1);
    auto colon = call.rfind("::");  // "::cudaMemcpy" -> "cudaMemcpy"
    if (colon != std::string_view::npos) call = call.substr(colon + 2);
    return call;
}

std::string cuda_error_message(int code, std::string_view call, int device, int worker) {
    auto err = static_cast<cudaError_t>(code);
    std::string out(call_function_name(call));
    out += " failed";
    if (device >= 0) {
        out += " on device " + std::to_string(device);
        out += worker >= 0 ? " (worker " + std::to_string(worker) + ")" : " (main thread)";
    } else if (worker >= 0) {
        out += " (worker " + std::to_string(worker) + ")";
    }
    out += ": ";
    out += cudaGetErrorString(err);
    out += " (";
    out += cudaGetErrorName(err);
    out += ")";
    return out;
}

void throw_cuda_error(cudaError_t err, const char* call, int device, int worker) {
    // Clear the runtime's last-error slot: a non-sticky error must not resurface in the next,
    // unrelated cudaGetLastError.
    (void)cudaGetLastError();
    throw std::runtime_error(cuda_error_message(int(err), call, device, worker));
}

}  // namespace xfer::cuda
