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

// The tag of the staged copy the calling thread is asking its staging engine for (0: none):
// set around the call by the harness's transfer, read by its staging probe when the copy
// arrives, so that the engine's DMAs join the copy's record (HarnessProbe).
void set_staged_tag(uint32_t tag) noexcept;
uint32_t staged_tag() noexcept;

}  // namespace xfer::cuda::correlation
