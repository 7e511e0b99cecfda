#pragma once
// The staging engine's tests tag their copies for a correlating probe the way the harness's copies
// are tagged: through the calling thread (tag_copies), read when the copy arrives.
#include <cstdint>

#include "backend/correlating_probe.hpp"
#include "engine/fake/host_staging_device.hpp"

namespace xfer::test {

inline thread_local uint32_t t_copy_tag = 0;
// The copies the calling thread asks for from now on carry `tag` (0: none).
inline void tag_copies(uint32_t tag) { t_copy_tag = tag; }
inline uint32_t copy_tag() { return t_copy_tag; }

// A correlating probe's sources: the fake's DMA numbers as CUPTI's ids, the thread's tag.
inline CorrelatingProbe::Sources fake_sources() {
    return {
        .correlation = &HostStagingDevice::take_last_id, .caller_tag = &copy_tag, .hand_over = {}};
}

}  // namespace xfer::test
