#include "backend/cuda/pattern_chunks.hpp"

#include <bit>
#include <cstring>
#include <stdexcept>

#include "memory/host_buffer.hpp"

namespace xfer::cuda {
namespace {

// pattern_byte(w, i) = f(i * kStep + (w + 1) * kWorkerStep): consecutive offsets add kStep, so
// a running value replaces the multiply (as memory/pattern.cpp does for offset 0).
constexpr uint64_t kStep = 0x9E3779B97F4A7C15ull;
constexpr uint64_t kWorkerStep = 0xBF58476D1CE4E5B9ull;

inline uint8_t byte_of(uint64_t x) { return uint8_t((x ^ (x >> 29)) | 1); }

inline uint64_t next_word(uint64_t& x) {
    uint64_t w = 0;
    for (int j = 0; j < 8; ++j) {
        w |= uint64_t(byte_of(x)) << (8 * j);
        x += kStep;
    }
    return w;
}

constexpr bool kLittle = std::endian::native == std::endian::little;

// The formula above duplicates pattern_byte(): if the header's pattern ever changes, verifying
// device buffers must fail loudly here rather than report every copy as corrupt.
void check_in_step(int worker, uint64_t base) {
    for (uint64_t i = 0; i < 16; ++i) {
        uint64_t x = (base + i) * kStep + uint64_t(worker + 1) * kWorkerStep;
        if (std::byte(byte_of(x)) != pattern_byte(worker, base + i))
            throw std::logic_error(
                "backend/cuda/pattern_chunks.cpp is out of step with pattern_byte() in "
                "memory/host_buffer.hpp");
    }
}

}  // namespace

void fill_pattern_at(std::byte* data, uint64_t n, int worker, uint64_t base) {
    check_in_step(worker, base);
    uint64_t x = base * kStep + uint64_t(worker + 1) * kWorkerStep;
    uint64_t i = 0;
    if constexpr (kLittle) {
        for (; i + 8 <= n; i += 8) {
            uint64_t w = next_word(x);
            std::memcpy(data + i, &w, 8);
        }
    }
    for (; i < n; ++i, x += kStep) data[i] = std::byte(byte_of(x));
}

int64_t find_pattern_mismatch_at(const std::byte* data, uint64_t n, int worker, uint64_t base) {
    check_in_step(worker, base);
    uint64_t x = base * kStep + uint64_t(worker + 1) * kWorkerStep;
    uint64_t i = 0;
    if constexpr (kLittle) {
        for (; i + 8 <= n; i += 8) {
            uint64_t want = next_word(x);
            uint64_t got;
            std::memcpy(&got, data + i, 8);
            if (got != want) return int64_t(i + std::countr_zero(got ^ want) / 8);
        }
    }
    for (; i < n; ++i, x += kStep)
        if (data[i] != std::byte(byte_of(x))) return int64_t(i);
    return -1;
}

}  // namespace xfer::cuda
