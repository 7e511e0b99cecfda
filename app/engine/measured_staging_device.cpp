#include "engine/measured_staging_device.hpp"

#include <utility>

#include "util/clock.hpp"

namespace xfer {

namespace {

// Set on each helper's thread when it attaches: a helper thread serves one engine for its life.
thread_local int t_helper = -1;

}  // namespace

MeasuredStagingDevice::MeasuredStagingDevice(std::unique_ptr<StagingDevice> inner,
                                             std::shared_ptr<EngineProbe> probe, int owners,
                                             int slots)
    : inner_(std::move(inner)),
      probe_(std::move(probe)),
      slots_(slots),
      in_flight_(size_t(owners) * size_t(slots)) {}

int MeasuredStagingDevice::calling_helper() { return t_helper >= 0 ? t_helper : kCallerThread; }

void MeasuredStagingDevice::attach_helper(int helper) {
    inner_->attach_helper(helper);
    t_helper = helper;
    probe_->helper_started(helper);
}

void MeasuredStagingDevice::started(int owner, int slot, uint64_t request, int64_t begin) {
    const int64_t issued = now_ns();
    in_flight(owner, slot) = {request, issued};
    // Right after the call: a CUPTI callback's correlation id of it is still the thread's latest.
    probe_->dma_started(calling_helper(), request, begin, issued);
}

void MeasuredStagingDevice::start_to_device(int owner, int slot, void* device_dst,
                                            const std::byte* host_src, uint64_t len,
                                            uint64_t request) {
    const int64_t begin = now_ns();
    inner_->start_to_device(owner, slot, device_dst, host_src, len, request);
    started(owner, slot, request, begin);
}

void MeasuredStagingDevice::start_from_device(int owner, int slot, std::byte* host_dst,
                                              const void* device_src, uint64_t len,
                                              uint64_t request) {
    const int64_t begin = now_ns();
    inner_->start_from_device(owner, slot, host_dst, device_src, len, request);
    started(owner, slot, request, begin);
}

void MeasuredStagingDevice::wait(int owner, int slot) {
    // Taken: a slot whose DMA failed to start is waited on harmlessly, with nothing to tell.
    const InFlight f = std::exchange(in_flight(owner, slot), InFlight{});
    if (f.request == 0) return inner_->wait(owner, slot);
    const int64_t begin = now_ns();
    // Told before the engine can retire the DMA's range (while the probe's copy is still open),
    // and on failure too: the helper waited all the same.
    try {
        inner_->wait(owner, slot);
    } catch (...) {
        probe_->dma_waited(calling_helper(), f.request, f.issued, begin, now_ns());
        throw;
    }
    probe_->dma_waited(calling_helper(), f.request, f.issued, begin, now_ns());
}

void MeasuredStagingDevice::host_copy(int helper, uint64_t bytes, HostStep copy) {
    const int64_t begin = now_ns();
    inner_->host_copy(helper, bytes, copy);
    probe_->copied(helper, bytes, begin, now_ns());
}

void MeasuredStagingDevice::spin(int helper, HostStep spin) {
    const int64_t begin = now_ns();
    inner_->spin(helper, spin);
    probe_->spun(helper, begin, now_ns());
}

void MeasuredStagingDevice::helper_busy(int helper, bool busy) {
    inner_->helper_busy(helper, busy);
    if (busy)
        probe_->helper_busy(helper, now_ns());
    else
        probe_->helper_idle(helper, now_ns());
}

void MeasuredStagingDevice::request_started(uint64_t request) {
    inner_->request_started(request);
    probe_->request_started(request, now_ns());
}

void MeasuredStagingDevice::request_finished(uint64_t request, bool failed) {
    inner_->request_finished(request, failed);
    probe_->request_finished(request, now_ns(), failed);
}

std::unique_ptr<StagingDevice> measured_device(std::unique_ptr<StagingDevice> device,
                                               std::shared_ptr<EngineProbe> probe,
                                               const StagingConfig& c) {
    if (!probe) return device;
    const StagingLayout layout = staging_layout(c);
    return std::make_unique<MeasuredStagingDevice>(std::move(device), std::move(probe),
                                                   layout.owners, layout.slots);
}

}  // namespace xfer
