#pragma once
// Measurement as a decorator around a staging device: what the engine asks of its device, timed
// and told to a probe (engine/engine_probe.hpp), the steps themselves run by the device inside.
// make_engine() wraps the platform's device in one only when a probe is asked for, so an engine
// without one reads no clock in a copy's path.
//
// The helper a call comes from is the thread's own (recorded at attach_helper, on the helper's
// thread): shared buffers are all owner 0's, yet the probe counts each helper's work apart.
#include <cstdint>
#include <memory>
#include <vector>

#include "engine/engine_probe.hpp"
#include "engine/staging_device.hpp"
#include "engine/staging_engine.hpp"

namespace xfer {

class MeasuredStagingDevice final : public StagingDevice {
  public:
    // `owners` x `slots`: the inner device's buffers (staging_layout).
    MeasuredStagingDevice(std::unique_ptr<StagingDevice> inner, std::shared_ptr<EngineProbe> probe,
                          int owners, int slots);

    void attach_helper(int helper) override;
    std::byte* buffer(int owner, int slot) override { return inner_->buffer(owner, slot); }
    void start_to_device(int owner, int slot, void* device_dst, const std::byte* host_src,
                         uint64_t len, uint64_t request) override;
    void start_from_device(int owner, int slot, std::byte* host_dst, const void* device_src,
                           uint64_t len, uint64_t request) override;
    void wait(int owner, int slot) override;
    void host_copy(int helper, uint64_t bytes, HostStep copy) override;
    void spin(int helper, HostStep spin) override;
    void helper_busy(int helper, bool busy) override;
    void request_started(uint64_t request) override;
    void request_finished(uint64_t request, bool failed) override;

  private:
    // A slot's DMA in flight: written by the helper that started it, read by the one that waits
    // for it, ordered by the engine's lock that hands the wait over.
    struct InFlight {
        uint64_t request = 0;
        int64_t issued = 0;
    };
    InFlight& in_flight(int owner, int slot) { return in_flight_[size_t(owner * slots_ + slot)]; }
    // The helper whose thread calls (attach_helper's), else kCallerThread: a thread that is no
    // helper's (the engine starts and waits for DMAs on helpers only).
    static int calling_helper();
    void started(int owner, int slot, uint64_t request, int64_t begin);

    std::unique_ptr<StagingDevice> inner_;
    std::shared_ptr<EngineProbe> probe_;
    int slots_;
    std::vector<InFlight> in_flight_;
};

// `device` measured by `probe` for an engine configured as `c` (its buffers' layout); returned as
// it is without a probe: the one place an engine's device gets its decorator.
std::unique_ptr<StagingDevice> measured_device(std::unique_ptr<StagingDevice> device,
                                               std::shared_ptr<EngineProbe> probe,
                                               const StagingConfig& c);

}  // namespace xfer
