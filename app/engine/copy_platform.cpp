#include "engine/copy_platform.hpp"

#include <fmt/format.h>

#include "engine/measured_staging_device.hpp"

namespace xfer {

MadeEngine make_engine(CopyPlatform& platform, const EngineOptions& options, int device,
                       const ProbeMaker& make_probe) {
    MadeEngine out;
    out.resolved = resolve(options, platform.facts(device));
    ResolvedEngine& r = out.resolved;
    if (const std::optional<std::string> path = platform.registry()) {
        out.registration = join_engine_registry(r.claim, r.config.active_helpers, *path);
        if (r.automatic_threads)
            r.note += out.registration->registered()
                          ? fmt::format(
                                "; as many helpers take work as their share of the CPUs "
                                "with the other engines of the registry {}",
                                out.registration->path())
                          : "; all take work: " + out.registration->why() +
                                ", so not shared with other engines";
    }
    // Measured: the device in a decorator that times what the engine asks of it.
    std::unique_ptr<StagingDevice> staging = measured_device(
        platform.make_device(r), make_probe ? make_probe(r.config.threads) : nullptr, r.config);
    out.engine = std::make_unique<StagingEngine>(r.config, std::move(staging));
    return out;
}

#if !XFER_HAVE_CUDA
CopyPlatform* cuda_copy_platform() { return nullptr; }
#endif

}  // namespace xfer
