#include "launch/run_deadline.hpp"

#include <algorithm>

#include "util/clock.hpp"

namespace xfer {

RunDeadline::RunDeadline(int64_t timeout_ns)
    : timeout_ns_(timeout_ns), at_ns_(now_ns() + timeout_ns) {}

bool RunDeadline::passed() const noexcept {
    if (now_ns() < at_ns_) return false;
    expire();
    return true;
}

BetweenSpec RunDeadline::clipped(const BetweenSpec& between) const noexcept {
    if (between.kind != BetweenKind::sleep && between.kind != BetweenKind::spin) return between;
    BetweenSpec out = between;
    out.sleep_ns = std::clamp<int64_t>(at_ns_ - now_ns(), 0, between.sleep_ns);
    return out;
}

}  // namespace xfer
