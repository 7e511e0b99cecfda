#pragma once
// How xferlab.copy moves `src` into `dst`: host to host, to a device or from one, and whether
// the staging helpers carry it or one plain copy does (page-locked host memory, small copies).
#include <cstdint>

#include "module/memory_views.hpp"
#include "module/module_engine.hpp"

namespace xfer::pyapi {

struct CopyRoute {
    // nothing: zero bytes, a no-op whatever the two sides are (as cudaMemcpy and memcpy of none).
    enum class Kind { nothing, host_to_host, to_device, from_device } kind = Kind::host_to_host;
    int device = -1;
    bool page_locked_host = false;
    // No staging: the host side is page-locked, or the copy is small. (Where the engine reads
    // pageable memory directly, run_copy makes every copy plain.)
    bool plain = false;
};

// Checks sizes and directions and finds where each side lives (with the GIL held). `engine`:
// the explicit engine (nullptr: the device's shared one), whose device must be the copy's.
// Throws pybind11::value_error for what the caller must change, EngineError for the device.
CopyRoute route_copy(const MemoryView& dst, const MemoryView& src, const ModuleEngine* engine);

// Runs `route` with the GIL released (the caller releases it). `stream`: the caller's stream
// (0: none), which the copy follows. `moments`: a measured engine's call, noted with the engine
// once its streams were waited for, where the copy is staged (nullptr: not timed).
void run_copy(const CopyRoute& route, const MemoryView& dst, const MemoryView& src,
              ModuleEngine* engine, uintptr_t stream, CallMoments* moments = nullptr);

}  // namespace xfer::pyapi
