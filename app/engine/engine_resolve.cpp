#include "engine/engine_resolve.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "engine/auto_helpers.hpp"
#include "util/format.hpp"

namespace xfer {

namespace {

// The sizes of an engine: its chunks both ways, its DMA and its buffers per helper.
struct Shape {
    uint64_t to_device = 0;
    uint64_t from_device = 0;
    uint64_t dma = 0;  // StagingConfig::dma_chunk (no larger than a chunk: a DMA per chunk)
    int buffers = 0;
};

Shape shape_of(const EngineOptions& o) {
    Shape s;
    const EngineDefaults& d = kEngineDefaults;
    const uint64_t piece = o.chunk > 0 ? o.chunk : d.chunk;
    s.dma = o.dma == kEngineDmaAuto ? d.chunks_per_dma * piece : o.dma;
    if (o.chunk > 0) {
        s.to_device = s.from_device = o.chunk;
    } else if (s.dma > d.chunk) {
        // Shared DMAs: pieces of one size both ways, so more helpers fill the buffer the link
        // takes next (pass 11: one caller faster in 22-26 of 27 paired trials per size).
        s.to_device = s.from_device = d.chunk;
    } else {
        s.to_device = d.chunk_to_device_per_chunk_dma;
        s.from_device = d.chunk_from_device_per_chunk_dma;
    }
    const bool shared = s.dma > std::max(s.to_device, s.from_device);
    s.buffers = o.buffers > 0 ? o.buffers : shared ? d.buffers : d.buffers_per_chunk_dma;
    return s;
}

void apply_shape(const Shape& s, StagingConfig& c) {
    c.chunk = s.to_device;
    c.chunk_from_device = s.from_device;
    c.dma_chunk = s.dma;
    c.buffers = s.buffers;
}

// "6 shared buffers of 8 MiB (48 MiB page-locked), each filled by the helpers together in
// chunks of 1 MiB", or each helper's own buffers.
std::string buffers_text(const StagingConfig& c) {
    const StagingLayout l = staging_layout(c);
    const std::string total = format_size(l.bytes * uint64_t(l.slots) * uint64_t(l.owners));
    const std::string chunks =
        c.chunk_from_device == c.chunk
            ? format_size(c.chunk)
            : fmt::format("{} to the device, {} from it", format_size(c.chunk),
                          format_size(c.chunk_from_device));
    if (staging_shares_buffers(c))
        return fmt::format(
            "{} shared buffers of {} ({} page-locked), each filled by the helpers together in "
            "chunks of {}",
            l.slots, format_size(l.bytes), total, chunks);
    return fmt::format("{} buffer{} of {} each ({} page-locked), one DMA per chunk", c.buffers,
                       c.buffers == 1 ? "" : "s", chunks, total);
}

}  // namespace

uint64_t engine_page_locked_bytes(const EngineOptions& options, int threads) {
    StagingConfig c;
    c.threads = std::max(threads, 1);
    apply_shape(shape_of(options), c);
    const StagingLayout l = staging_layout(c);
    return l.bytes * uint64_t(l.slots) * uint64_t(l.owners);
}

ResolvedEngine resolve(const EngineOptions& o, const DeviceFacts& f) {
    ResolvedEngine out;
    StagingConfig& c = out.config;
    c.device = f.device;
    apply_shape(shape_of(o), c);
    // Only an explicit chunk splits page-locked memory; auto DMAs it in one chunk per helper.
    c.page_locked_chunk = o.chunk;
    c.idle_spin = o.wait == StagingWait::spin;
    c.read_mapped_files = o.mapped_files == StagingMappedFiles::read;
    c.caller_starts = o.start == StagingStart::caller;
    c.lock_spin_ns = o.lock == StagingLock::spin ? kEngineDefaults.lock_spin_ns : 0;
    c.expect_spin_ns = o.wake == StagingWake::call ? kEngineDefaults.expect_spin_ns : 0;
    out.streams = o.streams;
    out.wait = o.wait;
    out.measure = o.measure;
    switch (o.affinity) {
        case StagingAffinity::gpu_local:
            c.cpus = f.local_cpus;
            break;
        case StagingAffinity::none:
            break;
        case StagingAffinity::list:
            c.cpus = o.cpus;
            break;
    }
    const int budget = c.cpus.empty() ? std::max(f.cpus, 1) : int(c.cpus.size());
    out.claim = EngineClaim{
        .device = f.device, .cpu_budget = budget, .cpus = c.cpus, .device_key = f.registry_key};
    std::string threads_why;
    if (o.threads > 0) {
        c.threads = o.threads;
        out.automatic_threads = false;
        out.claim.helpers = c.threads;
        out.claim.automatic = false;
        threads_why = "staging.threads";
    } else {
        const int cap = std::max(
            1, std::min(f.helper_cap, f.local_cpus.empty() ? f.cpus : int(f.local_cpus.size())));
        c.threads = auto_helper_count(f.link_gbps, f.memcpy_gbps, cap);
        out.claim.helpers = c.threads;
        out.claim.cap = cap;
        threads_why = fmt::format(
            "auto: the link carries {:.1f} GB/s ({}), one thread's memcpy into page-locked memory "
            "{:.1f} GB/s ({:g}x as many helpers as that needs), {} CPUs local to the device, at "
            "most {}; shared with the machine's other auto engines",
            f.link_gbps, f.link_text, f.memcpy_gbps, kEngineDefaults.helpers_per_link_share,
            f.local_cpus.size(), f.helper_cap);
    }
    out.pageable_direct = o.pageable == PageableRoute::direct ||
                          (o.pageable == PageableRoute::auto_ && f.pageable_uses_host_page_tables);
    out.pageable_why =
        o.pageable == PageableRoute::direct   ? "direct: pageable = \"direct\""
        : o.pageable == PageableRoute::staged ? "staged: pageable = \"staged\""
        : out.pageable_direct
            ? "direct: the device reads pageable memory through the host's page tables "
              "(cudaDevAttrPageableMemoryAccessUsesHostPageTables)"
            : "staged: the device reads pageable memory only through the driver's own staging";
    if (o.direct_below != kDirectBelowAuto)
        out.direct_below_to_device = out.direct_below_from_device = o.direct_below;
    const std::string cpus =
        c.cpus.empty()
            ? (o.affinity == StagingAffinity::none
                   ? std::string("not pinned (staging.affinity = \"none\")")
                   : "not pinned (no CPUs known local to the device: " + f.local_cpus_why + ")")
        : o.affinity == StagingAffinity::list ? "on CPUs " + format_cpu_ranges(c.cpus)
                                              : std::string("on the device's local CPUs");
    out.note = fmt::format(
        "staging on {}: {} helper thread{} ({}), {}, helpers {}; DMAs on {}, helpers {} "
        "while they wait for one{}{}{}",
        f.name, c.threads, c.threads == 1 ? "" : "s", threads_why, buffers_text(c), cpus,
        o.streams == StagingStreams::one ? "one stream (staging.streams = \"one\")"
                                         : "one stream per helper",
        o.wait == StagingWait::block ? "sleep (staging.wait = \"block\")" : "spin",
        c.read_mapped_files ? ""
                            : "; a copy to the device from a shared file mapping copies from the "
                              "mapping, faulting its pages in (staging.mapped_files = \"copy\")",
        staging_shares_buffers(c) && c.caller_starts
            ? "; a copy's caller fills its first buffer with the helpers (staging.start = "
              "\"caller\")"
            : "",
        o.lock == StagingLock::spin
            ? "; a thread finding the engine's lock taken tries for a while before it sleeps "
              "(staging.lock = \"spin\")"
            : "");
    return out;
}

}  // namespace xfer
