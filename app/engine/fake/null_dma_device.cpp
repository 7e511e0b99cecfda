#include "engine/fake/null_dma_device.hpp"

namespace xfer {

NullDmaDevice::NullDmaDevice(const StagingLayout& layout)
    : slots_(layout.slots),
      buffers_(size_t(layout.owners) * size_t(layout.slots),
               std::vector<std::byte>(layout.bytes, std::byte{1})) {}

}  // namespace xfer
