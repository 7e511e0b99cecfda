#pragma once
// Where a staging helper's busy time went, summed over its chunks: the host copy into or out of
// a page-locked buffer, starting the DMA (the API call), waiting for a DMA to finish. Busy time
// left over is scheduling (the engine's lock, taking the next piece). Measured only by a probe
// (engine/engine_probe.hpp); the harness records it per helper (results/helper_thread.hpp).
#include <cstdint>

namespace xfer {

struct HelperWork {
    uint64_t chunks = 0;        // DMAs this helper started
    uint64_t copied_bytes = 0;  // bytes it copied on the host (bounced chunks only)
    int64_t copy_ns = 0;
    int64_t start_ns = 0;
    int64_t wait_ns = 0;

    bool empty() const { return chunks == 0; }
    HelperWork& operator+=(const HelperWork& o) {
        chunks += o.chunks;
        copied_bytes += o.copied_bytes;
        copy_ns += o.copy_ns;
        start_ns += o.start_ns;
        wait_ns += o.wait_ns;
        return *this;
    }
};

}  // namespace xfer
