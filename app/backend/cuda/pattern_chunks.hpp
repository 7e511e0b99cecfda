#pragma once
// The verification pattern (memory/host_buffer.hpp) for a piece of a buffer that starts at
// `base`: device buffers are filled and checked through a host staging chunk, so the pattern
// must be computable from any offset. Internal to backend/cuda.
#include <cstddef>
#include <cstdint>

namespace xfer::cuda {

// data[i] = pattern_byte(worker, base + i) for i in [0, n).
void fill_pattern_at(std::byte* data, uint64_t n, int worker, uint64_t base);
// Index i (relative to data) of the first byte that differs from pattern_byte(worker, base + i),
// or -1.
int64_t find_pattern_mismatch_at(const std::byte* data, uint64_t n, int worker, uint64_t base);

}  // namespace xfer::cuda
