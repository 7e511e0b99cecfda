#include "engine/fake/host_staging_device.hpp"

#include <cstring>
#include <stdexcept>
#include <thread>
#include <utility>

namespace xfer {

namespace {

std::atomic<uint32_t> g_next_id{0};

// `most` becomes `now` where that is more.
void raise_to(std::atomic<int>& most, int now) {
    for (int seen = most; now > seen;)
        if (most.compare_exchange_weak(seen, now)) break;
}
thread_local uint32_t t_last_id = 0;  // the last DMA this thread started (a correlation id)

}  // namespace

HostStagingDevice::HostStagingDevice(int threads, int buffers, uint64_t chunk)
    : chunk_(chunk), buffers_(buffers), pending_(size_t(threads * buffers)) {
    for (int i = 0; i < threads * buffers; ++i) storage_.emplace_back(chunk);
}

void HostStagingDevice::attach_helper(int helper) {
    if (helper == fail_attach_helper) throw std::runtime_error("no device for this helper");
}

std::byte* HostStagingDevice::buffer(int helper, int slot) {
    return storage_[index(helper, slot)].data();
}

void HostStagingDevice::start_to_device(int helper, int slot, void* dst, const std::byte* src,
                                        uint64_t len, uint64_t /*request*/) {
    start(helper, slot,
          {true, static_cast<std::byte*>(dst), const_cast<std::byte*>(src), len, true});
}

void HostStagingDevice::start_from_device(int helper, int slot, std::byte* dst, const void* src,
                                          uint64_t len, uint64_t /*request*/) {
    start(helper, slot,
          {false, const_cast<std::byte*>(static_cast<const std::byte*>(src)), dst, len, true});
}

void HostStagingDevice::wait(int helper, int slot) {
    Pending& p = pending_[index(helper, slot)];
    if (!p.busy) return;
    p.busy = false;
    --in_flight_;
    raise_to(most_waiting, ++waiting_);
    if (wait_delay.count() > 0) std::this_thread::sleep_for(wait_delay);
    --waiting_;
    if (fail_in_wait && hits(p)) throw std::runtime_error("an illegal memory access");
    if (p.to_device) {
        std::memcpy(p.device, p.host, p.len);
        if (landed) {
            std::lock_guard lock(landed_mutex_);
            for (uint64_t i = 0; i < p.len; ++i) ++(*landed)[size_t(p.device - landed_base + i)];
        }
    } else {
        std::memcpy(p.host, p.device, p.len);
    }
    dma_bytes += p.len;
}

uint32_t HostStagingDevice::take_last_id() { return std::exchange(t_last_id, 0); }

bool HostStagingDevice::hits(const Pending& p) const {
    return fail_at && p.device <= fail_at && fail_at < p.device + p.len;
}

void HostStagingDevice::start(int helper, int slot, Pending p) {
    if (p.host == buffer(helper, slot) && p.len > chunk_)
        throw std::logic_error("a DMA longer than its buffer");
    Pending& slot_state = pending_[index(helper, slot)];
    if (slot_state.busy) ++violations;
    if (!fail_in_wait && hits(p)) throw std::runtime_error("invalid argument");
    if (p.host == buffer(helper, slot)) ++bounced;
    if (!slot_state.busy) raise_to(most_in_flight, ++in_flight_);
    slot_state = p;
    t_last_id = ++g_next_id;
}

}  // namespace xfer
