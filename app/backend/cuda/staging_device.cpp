#include "backend/cuda/staging_device.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include "backend/auto_helpers.hpp"
#include "backend/cuda/correlation_slot.hpp"
#include "backend/cuda/cuda_check.hpp"
#include "backend/cuda/cuda_errors.hpp"
#include "backend/cuda/topology.hpp"
#include "backend/staging_stores.hpp"
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

    void start_to_device(int helper, int slot, void* dst, const std::byte* src,
                         uint64_t len) override {
        start(helper, slot, dst, src, len, cudaMemcpyHostToDevice);
    }
    void start_from_device(int helper, int slot, std::byte* dst, const void* src,
                           uint64_t len) override {
        start(helper, slot, dst, src, len, cudaMemcpyDeviceToHost);
    }
    void wait(int helper, int slot) override {
        check(cudaEventSynchronize(events_[index(helper, slot)]), "cudaEventSynchronize");
    }
    bool finished(int helper, int slot) override {
        const cudaError_t err = cudaEventQuery(events_[index(helper, slot)]);
        if (err == cudaSuccess) return true;
        if (err != cudaErrorNotReady) (void)cudaGetLastError();  // wait() reports it
        return false;
    }
    uint32_t last_correlation() override { return correlation_; }

  private:
    size_t index(int helper, int slot) const { return size_t(helper * buffers_ + slot); }
    // The copy and the slot's event that marks its end. On the engine's one stream the pair is
    // started under a lock, so that no other helper's copy falls between them (the event would
    // then wait for that copy too).
    void start(int helper, int slot, void* dst, const void* src, uint64_t len,
               cudaMemcpyKind kind) {
        std::unique_lock lock(shared_stream_mutex_, std::defer_lock);
        if (streams_.size() == 1) lock.lock();
        correlation::reset();
        check(cudaMemcpyAsync(dst, src, len, kind, stream(helper)), "cudaMemcpyAsync");
        correlation_ = correlation::last();
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
    static inline thread_local uint32_t correlation_ = 0;
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

// "2 buffers of 4 MiB each (96 MiB page-locked)", or the shared buffers of staging.dma.
std::string buffers_text(const StagingConfig& c) {
    const StagingLayout l = staging_layout(c);
    const std::string total = format_size(l.bytes * uint64_t(l.slots) * uint64_t(l.owners));
    if (staging_shares_buffers(c))
        return fmt::format(
            "{} shared buffers of {} ({} page-locked; staging.dma), each filled by the helpers "
            "together in chunks of {}{}",
            l.slots, format_size(l.bytes), total, format_size(c.chunk),
            c.taper ? " (while no DMA runs, cut over all the helpers: staging.taper)" : "");
    return fmt::format(
        "{} buffer{} of {} each ({} page-locked){}", c.buffers, c.buffers == 1 ? "" : "s",
        format_size(c.chunk), total,
        c.taper ? ", each helper's first and last chunks shorter (staging.taper)" : "");
}

}  // namespace

std::unique_ptr<StagingDevice> make_cuda_staging_device(const ResolvedStaging& r) {
    const StagingConfig& c = r.config;
    const StagingLayout layout = staging_layout(c);
    return std::make_unique<CudaStagingDevice>(c.device, layout.owners, layout.slots, layout.bytes,
                                               r.streams, r.wait);
}

ResolvedStaging resolve_staging(const TransferSpec& t, int device) {
    return resolve_staging(t.staging, t.direction, t.bytes, device);
}

ResolvedStaging resolve_staging(const StagingSpec& s, Direction direction, uint64_t bytes,
                                int device) {
    ResolvedStaging out;
    StagingConfig& c = out.config;
    c.device = device;
    c.buffers = s.buffers;
    const StagingStoresChoice stores = resolve_staging_stores(s.stores);
    c.copy_in = stores.copy_in;
    c.copy_out = stores.copy_out;
    c.taper = s.taper;
    c.dma_chunk = s.dma;
    out.streams = s.streams;
    out.wait = s.wait;
    c.idle_spin = s.wait == StagingWait::spin;
    c.chunk = s.chunk > 0 ? s.chunk : default_staging_chunk(direction, bytes);
    // Only an explicit chunk splits page-locked memory; auto DMAs it in one chunk per helper.
    c.page_locked_chunk = s.chunk;
    std::string cpus_why;
    std::vector<int> local = local_cpus(device, &cpus_why);
    if (s.affinity == StagingAffinity::gpu_local) c.cpus = local;
    std::string threads_why;
    const int hardware = int(std::max(1u, std::thread::hardware_concurrency()));
    EngineClaim claim{.device = device,
                      .cpu_budget = c.cpus.empty() ? hardware : int(c.cpus.size()),
                      .cpus = c.cpus,
                      .device_key = registry_device_key(device)};
    if (s.threads > 0) {
        c.threads = s.threads;
        threads_why = "staging.threads";
        claim.helpers = c.threads;
        claim.automatic = false;
        out.registration = join_engine_registry(std::move(claim), c.active_helpers);
    } else {
        const DeviceTopology topo = device_topology(device);
        const double lane = lane_gbps(topo.link.current_generation);
        const double link = lane > 0 && topo.link.current_width > 0
                                ? lane * topo.link.current_width
                                : 64.0;  // unknown link: PCIe 5 x16's rate
        const double one = memcpy_gbps(c.chunk);
        const int cap =
            std::min<int>(kMaxAutoStagingThreads, local.empty() ? hardware : int(local.size()));
        c.threads = auto_helper_count(link, one, cap);
        claim.helpers = c.threads;
        claim.cap = std::max(cap, 1);
        auto registration = join_engine_registry(std::move(claim), c.active_helpers);
        out.registration = registration;
        threads_why = fmt::format(
            "auto: the link carries {:.1f} GB/s ({}), one thread's memcpy into page-locked memory "
            "{:.1f} GB/s ({:g}x as many helpers as that needs), {} CPUs local to the device, at "
            "most {}; {}",
            link,
            lane > 0 ? fmt::format("PCIe gen {} x{}", topo.link.current_generation,
                                   topo.link.current_width)
                     : "link unknown: assumed PCIe 5 x16",
            one, kAutoHelpersPerLinkShare, local.size(), kMaxAutoStagingThreads,
            registration->registered()
                ? fmt::format("as many take work as their share of the CPUs with the other "
                              "engines of the registry {} (the run's notes say how many)",
                              registration->path())
                : "all take work: " + registration->why() + ", so not shared with other engines");
    }
    out.note = fmt::format(
        "staging on device {}: {} helper thread{} ({}), {}, "
        "helpers {}; {}; DMAs on {}, helpers {} while they wait for one",
        device, c.threads, c.threads == 1 ? "" : "s", threads_why, buffers_text(c),
        c.cpus.empty() ? (s.affinity == StagingAffinity::none
                              ? std::string("not pinned (staging.affinity = \"none\")")
                              : "not pinned (no CPUs known local to the device: " + cpus_why + ")")
                       : "on the device's local CPUs",
        stores.note,
        s.streams == StagingStreams::one ? "one stream (staging.streams = \"one\")"
                                         : "one stream per helper",
        s.wait == StagingWait::block
            ? "sleep (staging.wait = " + quoted_value(StagingWait::block) + ")"
            : to_string(StagingWait::spin));
    return out;
}

}  // namespace xfer::cuda
