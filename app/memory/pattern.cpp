// The verification pattern, written and checked 8 bytes at a time. Neither is timed, but both
// run over GiB buffers before and after every run, so they must go at memory speed, not at one
// multiply per byte through a function call.
#include <bit>
#include <cstring>

#include "memory/host_buffer.hpp"

namespace xfer {
namespace {

// pattern_byte(w, i) is a function of x = i * kStep + seed(w): consecutive offsets add kStep,
// so a running x replaces the multiply. Must stay in step with pattern_byte in the header.
constexpr uint64_t kStep = 0x9E3779B97F4A7C15ull;
constexpr uint64_t kWorkerStep = 0xBF58476D1CE4E5B9ull;

uint64_t seed_at(int worker, uint64_t offset) {
    return offset * kStep + uint64_t(worker + 1) * kWorkerStep;
}

inline uint8_t byte_of(uint64_t x) { return uint8_t((x ^ (x >> 29)) | 1); }

// The 8 pattern bytes starting at running value x, as a little-endian word; advances x.
inline uint64_t next_word(uint64_t& x) {
    uint64_t w = 0;
    for (int j = 0; j < 8; ++j) {
        w |= uint64_t(byte_of(x)) << (8 * j);
        x += kStep;
    }
    return w;
}

constexpr bool kLittle = std::endian::native == std::endian::little;

}  // namespace

void fill_pattern(std::byte* data, uint64_t bytes, int worker) {
    uint64_t x = seed_at(worker, 0);
    uint64_t i = 0;
    if constexpr (kLittle) {
        for (; i + 8 <= bytes; i += 8) {
            uint64_t w = next_word(x);
            std::memcpy(data + i, &w, 8);
        }
    }
    for (; i < bytes; ++i, x += kStep) data[i] = std::byte(byte_of(x));
}

int64_t find_pattern_mismatch(const std::byte* data, uint64_t bytes, int worker) {
    uint64_t x = seed_at(worker, 0);
    uint64_t i = 0;
    if constexpr (kLittle) {
        for (; i + 8 <= bytes; i += 8) {
            uint64_t want = next_word(x);
            uint64_t got;
            std::memcpy(&got, data + i, 8);
            if (got != want) return int64_t(i + std::countr_zero(got ^ want) / 8);
        }
    }
    for (; i < bytes; ++i, x += kStep)
        if (data[i] != std::byte(byte_of(x))) return int64_t(i);
    return -1;
}

}  // namespace xfer
