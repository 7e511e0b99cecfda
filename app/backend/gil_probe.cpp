#include "backend/gil_probe.hpp"

#include <atomic>

namespace xfer {
namespace {
std::atomic<GilProbe> g_probe{nullptr};
}

void set_gil_probe(GilProbe probe) noexcept { g_probe.store(probe, std::memory_order_release); }

int gil_held_by_caller() noexcept {
    GilProbe probe = g_probe.load(std::memory_order_acquire);
    return probe ? probe() : -1;
}

}  // namespace xfer
