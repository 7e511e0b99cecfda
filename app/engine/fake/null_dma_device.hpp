#pragma once
// A staging device whose DMA costs nothing: starts and waits return at once and no byte moves.
// Through it the engine's own helpers fill its buffers as fast as they can, with their pieces,
// scheduling and wake-ups, and nothing else: the fill rate issue #58's model of a staged copy
// takes as an input (tests/bench/bench_module/limit.py), measured by the engine's C++ helpers
// rather than by Python threads. Test builds only.
#include <cstdint>
#include <vector>

#include "engine/staging_engine.hpp"

namespace xfer {

class NullDmaDevice final : public StagingDevice {
  public:
    // The buffers of `layout`, touched here (never in a timed copy).
    explicit NullDmaDevice(const StagingLayout& layout);

    void attach_helper(int) override {}
    std::byte* buffer(int owner, int slot) override {
        return buffers_[size_t(owner * slots_ + slot)].data();
    }
    void start_to_device(int, int, void*, const std::byte*, uint64_t, uint64_t) override {}
    void start_from_device(int, int, std::byte*, const void*, uint64_t, uint64_t) override {}
    void wait(int, int) override {}

  private:
    int slots_;
    std::vector<std::vector<std::byte>> buffers_;
};

}  // namespace xfer
