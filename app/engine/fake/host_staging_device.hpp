#pragma once
// A staging device whose "device memory" is host memory: each DMA is remembered when started
// and performed at wait(), so that the engine's chunking, scheduling and error paths are tested
// without a GPU (tests/unit/test_backend_staging*.cpp) and the fake-device Python module of the
// tests runs the same engine code. Failure injection and counters are public. Test builds only.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <vector>

#include "engine/staging_engine.hpp"

namespace xfer {

class HostStagingDevice final : public StagingDevice {
  public:
    HostStagingDevice(int threads, int buffers, uint64_t chunk);
    explicit HostStagingDevice(const StagingLayout& layout)
        : HostStagingDevice(layout.owners, layout.slots, layout.bytes) {}

    // A DMA touching [fail_at, fail_at + 1) of device memory fails (at start, or at wait()).
    const std::byte* fail_at = nullptr;
    bool fail_in_wait = false;
    int fail_attach_helper = -1;
    std::atomic<int> violations{0};  // a slot started again before its DMA was waited for
    std::atomic<uint64_t> dma_bytes{0};
    std::atomic<uint64_t> bounced{0};  // DMAs from or to a slot's buffer (not the worker's memory)
    std::chrono::microseconds wait_delay{0};  // every wait() for a DMA takes at least this long
    std::atomic<int> most_waiting{0};    // the most helpers inside wait() for a DMA at one time
    std::atomic<int> most_in_flight{0};  // the most DMAs started and not yet waited for at once
    std::vector<int>* landed = nullptr;  // per destination byte: how often a DMA wrote it
    const std::byte* landed_base = nullptr;

    void attach_helper(int helper) override;
    std::byte* buffer(int helper, int slot) override;
    void start_to_device(int helper, int slot, void* dst, const std::byte* src, uint64_t len,
                         uint64_t request) override;
    void start_from_device(int helper, int slot, std::byte* dst, const void* src, uint64_t len,
                           uint64_t request) override;
    void wait(int helper, int slot) override;
    // A number per DMA started, as CUPTI's correlation id would be: the calling thread's latest,
    // cleared by the read (the correlation reader of backend/correlating_probe.hpp in the tests).
    static uint32_t take_last_id();

  private:
    struct Pending {
        bool to_device = false;
        std::byte* device = nullptr;
        std::byte* host = nullptr;  // the slot's buffer, or the worker's page-locked memory
        uint64_t len = 0;
        bool busy = false;
    };
    size_t index(int helper, int slot) const { return size_t(helper * buffers_ + slot); }
    bool hits(const Pending& p) const;
    void start(int helper, int slot, Pending p);

    uint64_t chunk_;
    int buffers_;
    std::vector<std::vector<std::byte>> storage_;
    std::vector<Pending> pending_;
    std::atomic<int> waiting_{0};
    std::atomic<int> in_flight_{0};
    std::mutex landed_mutex_;
};

}  // namespace xfer
