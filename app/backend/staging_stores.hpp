#pragma once
// [staging] stores resolved per direction: how the staging helpers write the chunk they copy
// (memory/streaming_copy.hpp), and the sentence the run's notes carry about it.
#include <string>

#include "memory/streaming_copy.hpp"
#include "scenario/scenario.hpp"

namespace xfer {

struct StagingStoresChoice {
    HostStores copy_in = HostStores::cached;      // to the device: pageable -> page-locked buffer
    HostStores copy_out = HostStores::cached;      // from the device: page-locked buffer -> pageable
    std::string note;
};

StagingStoresChoice resolve_staging_stores(StagingStores stores);

}  // namespace xfer
