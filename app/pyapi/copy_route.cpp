#include "pyapi/copy_route.hpp"

#include <fmt/format.h>

#include <cstring>

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
            throw EngineError(fmt::format("{} ({}) is device memory, but no CUDA device answers "
                                          "here: {}",
                                          role, v.kind, why));
        throw py::value_error(fmt::format(
            "{} ({}) says it is device memory, but its address is not device memory this "
            "process can reach: was it made on another CUDA context, or freed?",
            role, v.kind));
    }
    return {false, -1, where.kind == PointerPlace::Kind::page_locked};
}

}  // namespace

CopyRoute route_copy(const MemoryView& dst, const MemoryView& src, const ModuleEngine* engine) {
    if (dst.bytes != src.bytes)
        throw py::value_error(fmt::format(
            "sizes differ: dst ({}) has {} bytes, src ({}) {}: copy arrays of equal size (slice "
            "the larger one, or view both as bytes)",
            dst.kind, dst.bytes, src.kind, src.bytes));
    CopyRoute route;
    // Host memory on both sides needs no device and no platform.
    if (!dst.device_side && !src.device_side && !engine) return route;
    CopyPlatform& platform = engine ? engine->platform() : current_platform();
    const Side d = side_of(platform, dst, "dst"), s = side_of(platform, src, "src");
    if (d.device && s.device)
        throw py::value_error(fmt::format(
            "both dst ({}) and src ({}) are device memory: xferlab.copy moves between host and "
            "device; copy within the device with the framework (cupy.copyto, tensor.copy_)",
            dst.kind, src.kind));
    if (!d.device && !s.device) return route;
    route.kind = d.device ? CopyRoute::Kind::to_device : CopyRoute::Kind::from_device;
    route.device = d.device ? d.device_id : s.device_id;
    route.page_locked_host = d.device ? s.page_locked : d.page_locked;
    route.plain = route.page_locked_host || dst.bytes < kDirectBelow;
    if (engine && engine->device() != route.device)
        throw py::value_error(fmt::format(
            "the device memory is on device {}, this engine on device {}: use "
            "xferlab.Engine(device={}), or xferlab.copy, which picks the device's own engine",
            route.device, engine->device(), route.device));
    return route;
}

void run_copy(const CopyRoute& route, const MemoryView& dst, const MemoryView& src,
              ModuleEngine* engine, uintptr_t stream) {
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
    // The producers' own streams first: their work on the arrays must be done.
    try {
        for (const MemoryView* v : {&dst, &src})
            if (v->stream) engine->platform().wait_stream(*v->stream, route.device);
    } catch (const std::exception& e) {
        throw EngineError(e.what());
    }
    const bool to_device = route.kind == CopyRoute::Kind::to_device;
    if (dst.bytes == 0) return;
    if (route.plain) {
        engine->plain(dst.data, src.data, dst.bytes, to_device, stream);
        return;
    }
    std::byte* host = to_device ? src.data : dst.data;
    std::byte* device = to_device ? dst.data : src.data;
    engine->staged(host, device, dst.bytes, to_device, route.page_locked_host, stream);
}

}  // namespace xfer::pyapi
