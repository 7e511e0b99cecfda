#include "engine/cuda/cuda_staging_device.hpp"

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>
#include <stdexcept>
#include <vector>

#include "engine/cuda/cuda_check.hpp"
#include "engine/cuda/cuda_errors.hpp"
#include "engine/cuda/topology.hpp"
#include "system/cpu_topology.hpp"
#include "util/clock.hpp"
#include "util/format.hpp"

namespace xfer::cuda {
namespace {

// A device error inside the engine: the engine adds device, worker and chunk to the message.
void check(cudaError_t err, const char* call) {
    if (err != cudaSuccess) throw std::runtime_error(cuda_error_message(int(err), call, -1, -1));
}

class CudaStagingDevice final : public StagingDevice {
  public:
    CudaStagingDevice(int device, int threads, int buffers, uint64_t chunk, StagingStreams streams,
                      StagingWait wait)
        : device_(device), buffers_(buffers) {
        const unsigned event_flags =
            cudaEventDisableTiming | (wait == StagingWait::block ? cudaEventBlockingSync : 0u);
        try {
            XFER_CUDA(device, -1, cudaSetDevice(device));
            const size_t slots = size_t(threads) * size_t(buffers);
            for (size_t i = 0; i < slots; ++i) {
                void* p = nullptr;
                cudaError_t err = cudaMallocHost(&p, chunk);
                if (err != cudaSuccess) {
                    (void)cudaGetLastError();
                    throw std::runtime_error(fmt::format(
                        "staging on device {}: page-locked buffer {} of {} ({} each, {} in all) "
                        "could not be allocated: {}: lower staging.threads, staging.buffers or "
                        "staging.chunk",
                        device, i + 1, slots, format_size(chunk), format_size(chunk * slots),
                        cudaGetErrorString(err)));
                }
                buffers_mem_.push_back(static_cast<std::byte*>(p));
                cudaEvent_t ev = nullptr;
                XFER_CUDA(device, -1, cudaEventCreateWithFlags(&ev, event_flags));
                events_.push_back(ev);
            }
            const int stream_count = streams == StagingStreams::one ? 1 : threads;
            for (int h = 0; h < stream_count; ++h) {
                cudaStream_t s = nullptr;
                XFER_CUDA(device, -1, cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
                streams_.push_back(s);
            }
        } catch (...) {
            release();
            throw;
        }
    }
    ~CudaStagingDevice() override { release(); }

    void attach_helper(int) override { XFER_CUDA(device_, -1, cudaSetDevice(device_)); }
    std::byte* buffer(int helper, int slot) override { return buffers_mem_[index(helper, slot)]; }

    void start_to_device(int helper, int slot, void* dst, const std::byte* src, uint64_t len,
                         uint64_t /*request*/) override {
        start(helper, slot, dst, src, len, cudaMemcpyHostToDevice);
    }
    void start_from_device(int helper, int slot, std::byte* dst, const void* src, uint64_t len,
                           uint64_t /*request*/) override {
        start(helper, slot, dst, src, len, cudaMemcpyDeviceToHost);
    }
    void wait(int helper, int slot) override {
        check(cudaEventSynchronize(events_[index(helper, slot)]), "cudaEventSynchronize");
    }

  private:
    size_t index(int helper, int slot) const { return size_t(helper * buffers_ + slot); }
    // The copy and the slot's event that marks its end. On the engine's one stream the pair is
    // started under a lock, so that no other helper's copy falls between them (the event would
    // then wait for that copy too).
    void start(int helper, int slot, void* dst, const void* src, uint64_t len,
               cudaMemcpyKind kind) {
        std::unique_lock lock(shared_stream_mutex_, std::defer_lock);
        if (streams_.size() == 1) lock.lock();
        check(cudaMemcpyAsync(dst, src, len, kind, stream(helper)), "cudaMemcpyAsync");
        check(cudaEventRecord(events_[index(helper, slot)], stream(helper)), "cudaEventRecord");
    }
    // One stream per helper, or the engine's one stream: its DMAs run in the order started
    // (cudaMemcpyAsync from several threads into one stream is serialized by the runtime).
    cudaStream_t stream(int helper) const {
        return streams_.size() == 1 ? streams_[0] : streams_[size_t(helper)];
    }
    void release() noexcept {
        if (cudaSetDevice(device_) != cudaSuccess) (void)cudaGetLastError();
        for (auto s : streams_)
            if (cudaStreamDestroy(s) != cudaSuccess) (void)cudaGetLastError();
        for (auto e : events_)
            if (cudaEventDestroy(e) != cudaSuccess) (void)cudaGetLastError();
        for (auto* p : buffers_mem_)
            if (cudaFreeHost(p) != cudaSuccess) (void)cudaGetLastError();
        streams_.clear();
        events_.clear();
        buffers_mem_.clear();
    }

    int device_;
    int buffers_;
    std::vector<std::byte*> buffers_mem_;
    std::vector<cudaEvent_t> events_;
    std::vector<cudaStream_t> streams_;
    std::mutex shared_stream_mutex_;
};

// GB/s one lane of a PCIe generation carries after line encoding (8b/10b up to gen 2,
// 128b/130b from gen 3; gen 6's FLIT mode counted like 128b/130b).
double lane_gbps(int generation) {
    static const double rate[] = {0, 0.25, 0.5, 0.985, 1.969, 3.938, 7.877};
    return generation >= 1 && generation <= 6 ? rate[generation] : 0;
}

// One thread's memcpy rate from pageable memory into a page-locked chunk, as a helper does it:
// a source larger than the caches, copied chunk by chunk into one reused buffer. Measured once
// per process (the second of two passes), on the calling thread.
double memcpy_gbps(uint64_t chunk) {
    static std::mutex mutex;
    static std::map<uint64_t, double> measured;
    std::lock_guard lock(mutex);
    if (auto it = measured.find(chunk); it != measured.end()) return it->second;
    const uint64_t total = uint64_t(256) << 20;
    std::vector<std::byte> source(total, std::byte{1});
    void* pinned = nullptr;
    if (cudaMallocHost(&pinned, chunk) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    double gbps = 0;
    for (int pass = 0; pass < 2; ++pass) {
        const int64_t t0 = now_ns();
        for (uint64_t off = 0; off < total; off += chunk)
            std::memcpy(pinned, source.data() + off, std::min(chunk, total - off));
        gbps = double(total) / double(std::max<int64_t>(now_ns() - t0, 1));
    }
    (void)cudaFreeHost(pinned);
    measured[chunk] = gbps;
    return gbps;
}

// The device in the engine registry: its PCI address (the same device whatever
// CUDA_VISIBLE_DEVICES numbers it in each process); 0 (the device number then) when unknown.
uint32_t registry_device_key(int device) {
    char id[32] = {};
    if (cudaDeviceGetPCIBusId(id, int(sizeof id), device) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return engine_device_key(id);
}

// The device's local CPUs that this process may use (both lists).
std::vector<int> usable_local_cpus(int device, std::string* why) {
    const std::vector<int> local = local_cpus(device, why), allowed = allowed_cpus();
    std::vector<int> out;
    for (int cpu : local)
        if (std::find(allowed.begin(), allowed.end(), cpu) != allowed.end()) out.push_back(cpu);
    if (out.empty() && !local.empty() && why) *why = "none of them is allowed to this process";
    return out;
}

bool reads_pageable_memory(int device) {
    int value = 0;
    if (cudaDeviceGetAttribute(&value, cudaDevAttrPageableMemoryAccessUsesHostPageTables, device) !=
        cudaSuccess) {
        (void)cudaGetLastError();
        return false;
    }
    return value != 0;
}

}  // namespace

std::unique_ptr<StagingDevice> make_cuda_staging_device(const ResolvedEngine& r) {
    const StagingConfig& c = r.config;
    const StagingLayout layout = staging_layout(c);
    return std::make_unique<CudaStagingDevice>(c.device, layout.owners, layout.slots, layout.bytes,
                                               r.streams, r.wait);
}

DeviceFacts cuda_device_facts(int device) {
    DeviceFacts f;
    f.device = device;
    f.name = fmt::format("device {}", device);
    const DeviceTopology topo = device_topology(device);
    const double lane = lane_gbps(topo.link.current_generation);
    if (lane > 0 && topo.link.current_width > 0) {
        f.link_gbps = lane * topo.link.current_width;
        f.link_text =
            fmt::format("PCIe gen {} x{}", topo.link.current_generation, topo.link.current_width);
    } else {
        f.link_gbps = 64.0;  // PCIe 5 x16's rate
        f.link_text = "link unknown: assumed PCIe 5 x16";
    }
    f.memcpy_gbps = memcpy_gbps(kEngineDefaults.chunk);
    f.local_cpus = usable_local_cpus(device, &f.local_cpus_why);
    f.cpus = std::max<int>(1, int(allowed_cpus().size()));
    f.pageable_uses_host_page_tables = reads_pageable_memory(device);
    f.registry_key = registry_device_key(device);
    return f;
}

}  // namespace xfer::cuda
