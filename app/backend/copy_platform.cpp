#include "backend/copy_platform.hpp"

#include <algorithm>

namespace xfer {

EngineChunks engine_chunks(const EngineRequest& r, uint64_t auto_piece, uint64_t auto_to_device,
                           uint64_t auto_from_device) {
    EngineChunks out;
    const uint64_t piece = r.chunk > 0 ? r.chunk : auto_piece;
    out.dma = r.dma == kEngineDmaAuto ? kEngineChunksPerDma * piece : r.dma;
    if (r.chunk > 0) {
        out.to_device = out.from_device = r.chunk;
    } else if (out.dma > auto_piece) {
        // Shared DMAs: pieces of one size both ways. On H200, 2 MiB pieces in 8 MiB DMAs (48 MiB
        // page-locked) took four callers from the device to 0.98-1.00x pinned against 0.93-0.96x
        // with a DMA per chunk on two of four machines (docs/results/h200-module.md, pass 8);
        // 1 MiB pieces in the same DMAs and memory put more helpers on the buffer the link
        // takes next, so one caller's first DMA starts sooner (pass 11).
        out.to_device = out.from_device = auto_piece;
    } else {
        out.to_device = auto_to_device;
        out.from_device = auto_from_device;
    }
    const bool shared = out.dma > std::max(out.to_device, out.from_device);
    out.buffers = r.buffers > 0 ? r.buffers
                  : shared      ? kEngineAutoBuffersShared
                                : kEngineAutoBuffers;
    return out;
}

}  // namespace xfer
