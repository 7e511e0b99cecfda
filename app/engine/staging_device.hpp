#pragma once
// The staging engine's device side: page-locked buffers and asynchronous DMA for one device
// (engine/cuda/cuda_staging_device.hpp; engine/fake/host_staging_device.hpp for the tests). An
// interface, so that the engine's chunking and scheduling are tested without a GPU. Calls with a
// helper index come from that helper's own thread only.
#include <cstddef>
#include <cstdint>

namespace xfer {

class StagingDevice {
  public:
    virtual ~StagingDevice() = default;
    // On the helper's thread before its first chunk: bind the device. Never timed.
    virtual void attach_helper(int helper) = 0;
    // The page-locked buffer of slot `slot` of owner `helper` (staging_layout's bytes).
    virtual std::byte* buffer(int helper, int slot) = 0;
    // Starts the DMA of `len` bytes from page-locked `host_src` to `device_dst` (or from
    // `device_src` into page-locked `host_dst`), recorded against the slot; returns at once. The
    // host side is the slot's buffer, or the caller's own memory when that is page-locked.
    virtual void start_to_device(int helper, int slot, void* device_dst, const std::byte* host_src,
                                 uint64_t len) = 0;
    virtual void start_from_device(int helper, int slot, std::byte* host_dst,
                                   const void* device_src, uint64_t len) = 0;
    // Returns when the slot's last DMA has finished. Throws on a device error.
    virtual void wait(int helper, int slot) = 0;
};

}  // namespace xfer
