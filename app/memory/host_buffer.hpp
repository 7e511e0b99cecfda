#pragma once
// Host memory of one kind, owned. Allocation and first touch happen here, never in a timed path.
#include <cstddef>
#include <cstdint>
#include <string>

#include "settings/specs.hpp"

namespace xfer {

class HostBuffer {
public:
    HostBuffer() = default;
    // Allocates `bytes` of host memory of `kind` (pageable, hugepage, numa:<n>). Kinds that need a
    // device runtime (pinned, registered, write-combined) are allocated by that backend and
    // handed in through adopt(). Throws std::runtime_error with the reason on failure.
    static HostBuffer allocate(const HostMemory& kind, uint64_t bytes);
    // Takes ownership of memory allocated elsewhere; `release` frees it.
    static HostBuffer adopt(void* data, uint64_t bytes, const HostMemory& kind,
                            void (*release)(void*, uint64_t));

    HostBuffer(HostBuffer&& other) noexcept;
    HostBuffer& operator=(HostBuffer&& other) noexcept;
    HostBuffer(const HostBuffer&) = delete;
    HostBuffer& operator=(const HostBuffer&) = delete;
    ~HostBuffer();

    std::byte* data() const { return data_; }
    uint64_t size() const { return size_; }
    const HostMemory& kind() const { return kind_; }

    // Writes every page so that it is faulted in by the calling thread (first-touch placement).
    void touch();

private:
    std::byte* data_ = nullptr;
    uint64_t size_ = 0;
    HostMemory kind_;
    void (*release_)(void*, uint64_t) = nullptr;
    std::byte* base_ = nullptr;  // what release_ frees, when the allocation starts before data_
};

// Throws the std::runtime_error allocate() would throw for `kind`, without allocating (a kind
// that needs a device runtime, a NUMA node that does not exist, a build without libnuma).
void check_host_memory(const HostMemory& kind);
// Whether a device's DMA engine reads or writes the kind directly (pinned, registered,
// write-combined), with no staging through page-locked buffers.
bool is_page_locked(HostMemoryKind kind);
// Bytes a buffer of `bytes` of `kind` really occupies (rounded up to its page size).
uint64_t host_memory_footprint(const HostMemory& kind, uint64_t bytes);
// The base page size, and the page size of `kind` (2 MiB for hugepage).
uint64_t base_page_size();
uint64_t host_page_size(const HostMemory& kind);

// The pattern a worker's source holds: byte i of worker w is pattern_byte(w, i). Cheap to
// recompute, different per worker and per offset, never zero. It is made of 8-byte words (one
// mix per word, not per byte) so that fill and check run at memory speed on GiB buffers;
// byte i is byte i % 8 of word i / 8, counting from the least significant byte.
inline uint64_t pattern_word(int worker, uint64_t word_index) {
    uint64_t x = word_index * 0x9E3779B97F4A7C15ull + uint64_t(worker + 1) * 0xBF58476D1CE4E5B9ull;
    x ^= x >> 29;
    x *= 0x94D049BB133111EBull;
    x ^= x >> 32;
    return x | 0x0101010101010101ull;  // no zero byte: a zeroed destination never verifies
}
inline std::byte pattern_byte(int worker, uint64_t offset) {
    return std::byte(uint8_t(pattern_word(worker, offset / 8) >> (8 * (offset % 8))));
}
void fill_pattern(std::byte* data, uint64_t bytes, int worker);
// Offset of the first byte that differs from the pattern, or -1 when all match.
int64_t find_pattern_mismatch(const std::byte* data, uint64_t bytes, int worker);

}  // namespace xfer
