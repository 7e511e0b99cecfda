// Defaults of the [staging] table that depend on the copy (scenario.hpp says why these values).
#include <algorithm>

#include "scenario/scenario.hpp"

namespace xfer {

uint64_t default_staging_chunk(Direction direction, uint64_t bytes) {
    const uint64_t chunk =
        direction == Direction::d2h ? kStagingChunkFromDevice : kStagingChunkToDevice;
    return std::min(chunk, std::max<uint64_t>(bytes, 1));
}

}  // namespace xfer
