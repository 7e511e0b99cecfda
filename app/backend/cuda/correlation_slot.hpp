#pragma once
// The CUPTI correlation id of the last memcpy call this thread made, kept apart from the tracer
// (cupti_tracer.cpp writes it from its callback) so that code which only reads it, such as the
// staging probes, links no CUPTI. 0 when nothing traced the call.
#include <cstdint>

namespace xfer::cuda::correlation {

void set(uint32_t id) noexcept;
void reset() noexcept;
uint32_t last() noexcept;
// last(), then reset(): what a staging probe keeps per DMA (StatsProbe's correlation reader).
uint32_t take() noexcept;

}  // namespace xfer::cuda::correlation
