// Whether a CUDA device answers here, and if not, why, in words a user can act on.
#include "engine/cuda/cuda_availability.hpp"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>

#include "engine/cuda/cuda_check.hpp"
#include "engine/cuda/cuda_errors.hpp"

namespace xfer::cuda {
namespace {

std::string version_text(int v) {  // 13000 -> "13.0"
    return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

// Whether the driver library can be loaded at all; its dlerror text when not.
bool driver_library_loads(std::string* why) {
    void* handle = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
    if (handle) {
        dlclose(handle);
        return true;
    }
    const char* err = dlerror();
    if (why) *why = err ? err : "dlopen failed";
    return false;
}

std::string visible_devices_hint() {
    const char* v = std::getenv("CUDA_VISIBLE_DEVICES");
    if (!v) return "";
    return std::string(" (CUDA_VISIBLE_DEVICES=\"") + v + "\")";
}

// The reason a failed cudaGetDeviceCount gives, translated: cudart reports a missing driver
// as "insufficient driver", which misleads on a machine that has no driver at all.
std::string unavailable_reason(cudaError_t err) {
    std::string dl_error;
    if (!driver_library_loads(&dl_error)) {
        return "no CUDA driver loaded (libcuda.so.1 not found: " + dl_error + ")";
    }
    int driver = 0, runtime = 0;
    cudaDriverGetVersion(&driver);
    cudaRuntimeGetVersion(&runtime);
    switch (err) {
        case cudaErrorInsufficientDriver:
            return "the CUDA driver supports CUDA " + version_text(driver) +
                   " but xferlab was built with CUDA runtime " + version_text(runtime) +
                   ": install a newer driver";
        case cudaErrorNoDevice:
            return "the CUDA driver is loaded but no CUDA device is visible" +
                   visible_devices_hint();
        case cudaErrorStubLibrary:
            return "libcuda.so.1 is the toolkit's stub library, not a driver (remove the "
                   "stubs folder from LD_LIBRARY_PATH)";
        case cudaErrorSystemDriverMismatch:
            return "the kernel module and the user-space CUDA driver differ in version "
                   "(cudaErrorSystemDriverMismatch): reboot or reinstall the driver";
        case cudaErrorInitializationError:
            return "the CUDA driver failed to initialize (cudaErrorInitializationError): "
                   "are /dev/nvidia* present and accessible?";
        default:
            break;
    }
    return cuda_error_message(int(err), "cudaGetDeviceCount", -1, -1);
}

std::string gib_text(uint64_t bytes) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.0f GiB", double(bytes) / double(1ull << 30));
    return buf;
}

CudaAvailability probe() {
    CudaAvailability a;
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess) {
        (void)cudaGetLastError();
        a.reason = unavailable_reason(err);
        return a;
    }
    if (count <= 0) {
        a.reason = "the CUDA driver is loaded but reports no device" + visible_devices_hint();
        return a;
    }
    std::string summary = std::to_string(count) + (count == 1 ? " device: " : " devices: ");
    for (int d = 0; d < count; ++d) {
        cudaDeviceProp prop{};
        if (d > 0) summary += "; ";
        if (cudaGetDeviceProperties(&prop, d) != cudaSuccess) {
            (void)cudaGetLastError();
            summary += std::to_string(d) + " (properties unreadable)";
            continue;
        }
        summary += std::to_string(d) + " " + prop.name + " (sm_" + std::to_string(prop.major) +
                   std::to_string(prop.minor) + ", " + gib_text(prop.totalGlobalMem) + ")";
    }
    a.available = true;
    a.reason = summary;
    return a;
}

}  // namespace

CudaAvailability cuda_availability() {
    // Probed once: cudart caches a failed initialization anyway, and devices do not come and go
    // during a run.
    static std::once_flag once;
    static CudaAvailability cached;
    std::call_once(once, [] { cached = probe(); });
    return cached;
}

}  // namespace xfer::cuda
