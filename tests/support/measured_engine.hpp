#pragma once
// The staging engine's tests measure an engine as make_engine() does: its device in a
// MeasuredStagingDevice told to a probe. Copies carry a tag to a correlating probe the way the
// harness's do: through the calling thread (tag_copies), read when the copy arrives.
#include <cstdint>
#include <memory>
#include <utility>

#include "backend/correlating_probe.hpp"
#include "engine/fake/host_staging_device.hpp"
#include "engine/measured_staging_device.hpp"
#include "engine/staging_engine.hpp"

namespace xfer::test {

inline thread_local uint32_t t_copy_tag = 0;
// The copies the calling thread asks for from now on carry `tag` (0: none).
inline void tag_copies(uint32_t tag) { t_copy_tag = tag; }
inline uint32_t copy_tag() { return t_copy_tag; }

// A correlating probe's sources: the fake's DMA numbers as CUPTI's ids, the thread's tag.
inline CorrelatingProbe::Sources fake_sources() {
    return {.correlation = &HostStagingDevice::take_last_id, .caller_tag = &copy_tag};
}

// `device` measured by `probe` for an engine configured as `c`; nullptr: not measured.
inline std::unique_ptr<StagingDevice> measured(std::unique_ptr<StagingDevice> device,
                                               std::shared_ptr<EngineProbe> probe,
                                               const StagingConfig& c) {
    if (!probe) return device;
    const StagingLayout layout = staging_layout(c);
    return std::make_unique<MeasuredStagingDevice>(std::move(device), std::move(probe),
                                                   layout.owners, layout.slots);
}

}  // namespace xfer::test
