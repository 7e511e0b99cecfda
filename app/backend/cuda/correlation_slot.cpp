#include "backend/cuda/correlation_slot.hpp"

namespace xfer::cuda::correlation {

namespace {
thread_local uint32_t t_correlation = 0;
thread_local uint32_t t_staged_tag = 0;
}  // namespace

void set(uint32_t id) noexcept { t_correlation = id; }
void reset() noexcept { t_correlation = 0; }
uint32_t last() noexcept { return t_correlation; }
uint32_t take() noexcept {
    const uint32_t id = t_correlation;
    t_correlation = 0;
    return id;
}

void set_staged_tag(uint32_t tag) noexcept { t_staged_tag = tag; }
uint32_t staged_tag() noexcept { return t_staged_tag; }

}  // namespace xfer::cuda::correlation
