#include "backend/cuda/pattern_chunks.hpp"

#include <bit>
#include <cstring>

#include "memory/host_buffer.hpp"

namespace xfer::cuda {
namespace {

constexpr bool kLittle = std::endian::native == std::endian::little;

}  // namespace

// Byte by byte up to the next word boundary of the whole buffer, then whole pattern words
// (memory/ defines the pattern as little-endian words), then the tail byte by byte.
void fill_pattern_at(std::byte* data, uint64_t n, int worker, uint64_t base) {
    uint64_t i = 0;
    for (; i < n && (base + i) % 8 != 0; ++i) data[i] = pattern_byte(worker, base + i);
    if constexpr (kLittle) {
        for (; i + 8 <= n; i += 8) {
            const uint64_t w = pattern_word(worker, (base + i) / 8);
            std::memcpy(data + i, &w, 8);
        }
    }
    for (; i < n; ++i) data[i] = pattern_byte(worker, base + i);
}

int64_t find_pattern_mismatch_at(const std::byte* data, uint64_t n, int worker, uint64_t base) {
    uint64_t i = 0;
    for (; i < n && (base + i) % 8 != 0; ++i)
        if (data[i] != pattern_byte(worker, base + i)) return int64_t(i);
    if constexpr (kLittle) {
        for (; i + 8 <= n; i += 8) {
            const uint64_t want = pattern_word(worker, (base + i) / 8);
            uint64_t got;
            std::memcpy(&got, data + i, 8);
            if (got != want) return int64_t(i + uint64_t(std::countr_zero(got ^ want)) / 8);
        }
    }
    for (; i < n; ++i)
        if (data[i] != pattern_byte(worker, base + i)) return int64_t(i);
    return -1;
}

}  // namespace xfer::cuda
