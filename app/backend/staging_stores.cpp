#include "backend/staging_stores.hpp"

#include <fmt/format.h>

namespace xfer {

StagingStoresChoice resolve_staging_stores(StagingStores stores) {
    StagingStoresChoice c;
    if (stores == StagingStores::auto_) {
        // Measured on the H200 host (docs/results/h200-cure.md, tools/measure/staging-stores.toml):
        // cached stores beat streaming ones in both directions while the DMA runs (H2D 0.88x,
        // D2H 0.76-0.83x with streaming), although without the DMA streaming copy-out is twice
        // as fast (bench_host_staging_copy). So auto is cached both ways.
        c.copy_in = HostStores::cached;
        c.copy_out = HostStores::cached;
    } else {
        c.copy_in = c.copy_out =
            stores == StagingStores::streaming ? HostStores::streaming : HostStores::cached;
    }
    const char* why = stores == StagingStores::auto_
                          ? " (auto: cached both ways, measured best on H200)"
                          : "";
    c.note = fmt::format(
        "helpers copy in (to the device) with {} stores, out (from the device) "
        "with {} stores{}{}",
        to_string(c.copy_in), to_string(c.copy_out), why,
        has_streaming_stores() ? ""
                               : "; this CPU has no streaming stores here: "
                                 "both are memcpy");
    return c;
}

}  // namespace xfer
