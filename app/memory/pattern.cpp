// The verification pattern, written and checked a word at a time. Neither is timed, but both
// run over GiB buffers before and after every run, so they must go at memory speed.
#include <bit>
#include <cstring>

#include "memory/host_buffer.hpp"

namespace xfer {
namespace {

constexpr bool kLittle = std::endian::native == std::endian::little;

}  // namespace

void fill_pattern(std::byte* data, uint64_t bytes, int worker) {
    uint64_t i = 0;
    if constexpr (kLittle) {
        // Little-endian: the word's least significant byte lands first, as pattern_byte says.
        for (; i + 8 <= bytes; i += 8) {
            const uint64_t w = pattern_word(worker, i / 8);
            std::memcpy(data + i, &w, 8);
        }
    }
    for (; i < bytes; ++i) data[i] = pattern_byte(worker, i);
}

int64_t find_pattern_mismatch(const std::byte* data, uint64_t bytes, int worker) {
    uint64_t i = 0;
    if constexpr (kLittle) {
        for (; i + 8 <= bytes; i += 8) {
            const uint64_t want = pattern_word(worker, i / 8);
            uint64_t got;
            std::memcpy(&got, data + i, 8);
            if (got != want) return int64_t(i + uint64_t(std::countr_zero(got ^ want)) / 8);
        }
    }
    for (; i < bytes; ++i)
        if (data[i] != pattern_byte(worker, i)) return int64_t(i);
    return -1;
}

}  // namespace xfer
