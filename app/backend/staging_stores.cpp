#include "backend/staging_stores.hpp"

#include <fmt/format.h>

namespace xfer {

StagingStoresChoice resolve_staging_stores(StagingStores stores) {
    StagingStoresChoice c;
    if (stores == StagingStores::auto_) {
        // A hypothesis, not yet a measurement (tools/measure/staging-stores.toml measures it):
        // copy-out writes the worker's pageable buffer, which nothing reads again soon, so
        // streaming stores save the read-for-ownership of every line; copy-in writes a small
        // page-locked buffer that the DMA reads right after, possibly from the last-level cache
        // (DDIO-style), which streaming stores would evict to memory first.
        c.copy_in = HostStores::cached;
        c.copy_out = HostStores::streaming;
    } else {
        c.copy_in = c.copy_out =
            stores == StagingStores::streaming ? HostStores::streaming : HostStores::cached;
    }
    const char* why = stores == StagingStores::auto_
                          ? " (auto: the unmeasured default, tools/measure/staging-stores.toml)"
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
