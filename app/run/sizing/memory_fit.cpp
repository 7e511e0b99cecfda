#include "run/sizing/memory_fit.hpp"

#include <fmt/format.h>

#include <bit>

#include "util/units.hpp"

namespace xfer {
namespace {

// "this machine has 3.5 GiB free", and which limit that is when it is not MemAvailable.
std::string what_is_free(const MemoryLimit& m) {
    std::string s = fmt::format("this machine has {} free", format_size(m.left));
    switch (m.kind) {
        case MemoryLimit::Kind::available:
            break;
        case MemoryLimit::Kind::address_space:
            s +=
                fmt::format(" under the address-space limit (ulimit -v, {})", format_size(m.limit));
            break;
        case MemoryLimit::Kind::cgroup:
            s += fmt::format(" under the cgroup memory limit ({}, {})", format_size(m.limit),
                             m.where);
            break;
    }
    return s;
}

}  // namespace

uint64_t fit_headroom(uint64_t need) { return need / 8 + (uint64_t(256) << 20); }

FitChoice fit_copy_size(const FitRequest& request, const MemoryBudget& budget) {
    const MemoryLimit& binding = budget.binding();
    auto needed = [&](uint64_t bytes) {
        const uint64_t n = request.need(bytes);
        return n + fit_headroom(n);
    };
    FitChoice choice;
    choice.bytes = request.full_bytes;
    choice.needed = needed(request.full_bytes);
    if (choice.needed <= binding.left) {
        choice.fits = true;
        return choice;
    }
    // Powers of two below the written size: the sizes a reader compares runs at anyway.
    uint64_t bytes = std::bit_floor(request.full_bytes);
    if (bytes == request.full_bytes) bytes /= 2;
    for (; bytes >= request.floor_bytes; bytes /= 2) {
        if (needed(bytes) > binding.left) continue;
        choice = {true, true, bytes, needed(bytes),
                  fmt::format("{}: copies of {} instead of {}", what_is_free(binding),
                              format_size(bytes), format_size(request.full_bytes))};
        return choice;
    }
    const uint64_t smallest = std::min(request.floor_bytes, request.full_bytes);
    choice.bytes = smallest;
    choice.needed = needed(smallest);
    choice.message = fmt::format(
        "{}: the plan needs {} (with headroom) even with copies of {}, the smallest --fit "
        "tries; free memory or raise the limit",
        what_is_free(binding), format_size(choice.needed), format_size(smallest));
    return choice;
}

}  // namespace xfer
