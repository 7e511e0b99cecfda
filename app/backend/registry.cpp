#include <stdexcept>
#include <utility>

#include "backend/backend.hpp"
#include "backend/host_backend.hpp"
#include "settings/vocabulary.hpp"
#ifdef XFER_HAVE_CUDA
#include "backend/cuda/cuda_backend.hpp"
#endif

namespace xfer {

BackendUnavailable::BackendUnavailable(std::string backend_name, std::string why)
    : std::runtime_error("backend " + backend_name + " is unavailable: " + why),
      backend(std::move(backend_name)),
      reason(std::move(why)) {}

std::vector<BackendAvailability> list_backends() {
    std::vector<BackendAvailability> out;
    out.push_back({"host", true, "memcpy between host buffers"});
#ifdef XFER_HAVE_CUDA
    out.push_back(cuda::availability());
#else
    out.push_back({"cuda", false, "not compiled in: no CUDA toolkit with CUPTI found at build time"});
#endif
    return out;
}

std::unique_ptr<Backend> make_backend(const std::string& name, std::string* note) {
    if (name == "host") return make_host_backend();
    if (name == "cuda" || name == "auto") {
#ifdef XFER_HAVE_CUDA
        auto cuda = cuda::availability();
        if (cuda.available) return cuda::make_backend();
        std::string reason = cuda.reason;
#else
        std::string reason = "not compiled in: no CUDA toolkit with CUPTI found at build time";
#endif
        if (name == "cuda") throw BackendUnavailable(name, reason);
        if (note) *note = "backend auto fell back to host: cuda unavailable (" + reason + ")";
        return make_host_backend(/*standing_in=*/true);
    }
    throw std::runtime_error("unknown backend '" + name + "' (allowed: " +
                             join_names(backend_choices()) + ")");
}

}  // namespace xfer
