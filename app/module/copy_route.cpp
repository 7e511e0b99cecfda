#include "module/copy_route.hpp"

#include <fmt/format.h>

#include <cstring>
#include <initializer_list>

#include "engine/engine_resolve.hpp"
#include "util/clock.hpp"

namespace py = pybind11;

namespace xfer::pyapi {

namespace {

struct Side {
    bool device = false;
    int device_id = -1;
    bool page_locked = false;
};

Side side_of(CopyPlatform& platform, const MemoryView& v, const char* role) {
    const PointerPlace where = platform.place(v.data, v.bytes);
    if (where.kind == PointerPlace::Kind::device)
        return {true, v.device >= 0 ? v.device : where.device, false};
    if (v.device_side) {
        if (const std::string why = platform.unavailable(); !why.empty())
            throw EngineError(
                fmt::format("{} ({}) is device memory, but no CUDA device answers "
                            "here: {}",
                            role, v.kind(), why));
        throw py::value_error(fmt::format(
            "{} ({}) says it is device memory, but its address is not device memory this "
            "process can reach: was it made on another CUDA context, or freed?",
            role, v.kind()));
    }
    return {false, -1, where.kind == PointerPlace::Kind::page_locked};
}

[[noreturn]] void both_on_devices(const MemoryView& dst, const MemoryView& src) {
    throw py::value_error(fmt::format(
        "both dst ({}) and src ({}) are device memory: xferlab.copy moves between host and "
        "device; copy within the device with the framework (cupy.copyto, tensor.copy_)",
        dst.kind(), src.kind()));
}

// The shared engine's is the default's (it is made with default options, EngineOptions{}).
uint64_t direct_below(const ModuleEngine* engine, bool to_device) {
    if (engine) return engine->direct_below(to_device);
    return to_device ? kEngineDefaults.direct_below_to_device
                     : kEngineDefaults.direct_below_from_device;
}

}  // namespace

CopyRoute route_copy(const MemoryView& dst, const MemoryView& src, const ModuleEngine* engine) {
    if (dst.bytes != src.bytes)
        throw py::value_error(fmt::format(
            "sizes differ: dst ({}) has {} bytes, src ({}) {}: copy arrays of equal size (slice "
            "the larger one, or view both as bytes)",
            dst.kind(), dst.bytes, src.kind(), src.bytes));
    CopyRoute route;
    // Nothing to move: no pointer is looked up (an empty CuPy array's is 0, which no device
    // owns), and no engine is made.
    if (dst.bytes == 0) {
        route.kind = CopyRoute::Kind::nothing;
        return route;
    }
    // Host memory on both sides needs no device and no platform.
    if (!dst.device_side && !src.device_side && !engine) return route;
    CopyPlatform& platform = engine ? engine->platform() : current_platform();
    if (dst.device_side && src.device_side) both_on_devices(dst, src);
    Side d, s;
    if (dst.device_side != src.device_side) {
        // One side says it is device memory. Below the threshold the copy is plain whatever the
        // host memory is, so its kind is not looked up (a driver call less on a small copy).
        const bool to_device = dst.device_side;
        (to_device ? d : s) = side_of(platform, to_device ? dst : src, to_device ? "dst" : "src");
        if (dst.bytes >= direct_below(engine, to_device))
            (to_device ? s : d) =
                side_of(platform, to_device ? src : dst, to_device ? "src" : "dst");
    } else {
        // Neither says so (an engine's copy of host objects): ask where each one lives.
        d = side_of(platform, dst, "dst");
        s = side_of(platform, src, "src");
    }
    if (d.device && s.device) both_on_devices(dst, src);
    if (!d.device && !s.device) return route;
    route.kind = d.device ? CopyRoute::Kind::to_device : CopyRoute::Kind::from_device;
    route.device = d.device ? d.device_id : s.device_id;
    route.page_locked_host = d.device ? s.page_locked : d.page_locked;
    route.plain = route.page_locked_host || dst.bytes < direct_below(engine, d.device);
    if (engine && engine->device() != route.device)
        throw py::value_error(fmt::format(
            "the device memory is on device {}, this engine on device {}: use "
            "xferlab.Engine(device={}), or xferlab.copy, which picks the device's own engine",
            route.device, engine->device(), route.device));
    return route;
}

void run_copy(const CopyRoute& route, const MemoryView& dst, const MemoryView& src,
              ModuleEngine* engine, uintptr_t stream, CallMoments* moments) {
    if (route.kind == CopyRoute::Kind::nothing) return;
    if (route.kind == CopyRoute::Kind::host_to_host) {
        std::memcpy(dst.data, src.data, dst.bytes);
        if (engine) engine->count_host_copy();
        return;
    }
    std::shared_ptr<ModuleEngine> shared;
    if (!engine) {
        shared = shared_engine(route.device);  // made on first use: its start takes a while
        engine = shared.get();
    }
    // Where the device reads pageable memory through the host's page tables, a plain copy of
    // it runs at about the page-locked rate: staging would only add host memory traffic.
    const bool plain = route.plain || engine->pageable_direct();
    // The producers' own streams first: their work on the arrays must be done. A plain copy on
    // a default stream (the caller's per-thread one, or the legacy one) is ordered after the
    // legacy stream's work by CUDA itself: no wait for a producer on the legacy stream (1, as
    // CuPy and PyTorch say it by default) there. The helpers' streams are non-blocking.
    const bool ordered_after_legacy = plain && stream <= 2;
    try {
        for (const MemoryView* v : {&dst, &src})
            if (v->stream && !(*v->stream == 1 && ordered_after_legacy))
                engine->platform().wait_stream(*v->stream, route.device);
    } catch (const std::exception& e) {
        throw EngineError(e.what());
    }
    const bool to_device = route.kind == CopyRoute::Kind::to_device;
    if (plain) {
        engine->plain(dst.data, src.data, dst.bytes, to_device, stream);
        return;
    }
    std::byte* host = to_device ? src.data : dst.data;
    std::byte* device = to_device ? dst.data : src.data;
    if (moments) {
        moments->waited = now_ns();
        engine->note_call(*moments);
    }
    // Only where it wakes on call: else xferlab.copy's way in looks up no engine for it.
    if (shared && engine->wakes_on_call()) note_shared_staged(route.device);
    engine->staged(host, device, dst.bytes, to_device, route.page_locked_host, stream);
}

}  // namespace xfer::pyapi
