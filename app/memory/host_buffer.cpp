// Host buffers of each kind the host can allocate by itself. Allocation never touches a page:
// where the pages land (NUMA node, page size) is decided by whoever writes them first, which
// is the first-touch policy's job (touch()), not the allocator's.
#include "memory/host_buffer.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <utility>

#include "memory/numa_memory.hpp"

namespace xfer {
namespace {

// Overflow-safe: a size within `to` of 2^64 cannot be rounded up, and is no buffer to allocate
// (the scenario caps sizes far below; this keeps a caller that forgot from wrapping to 0).
uint64_t round_up(uint64_t n, uint64_t to) {
    const uint64_t rest = n % to;
    if (rest == 0) return n;
    if (n > UINT64_MAX - (to - rest))
        throw std::length_error("a buffer of " + std::to_string(n) +
                                " bytes cannot be rounded up to whole pages: it is larger than "
                                "any address space");
    return n + (to - rest);
}

// A zero-byte buffer still gets one byte so that data() is never null.
uint64_t alloc_length(uint64_t bytes) { return std::max<uint64_t>(bytes, 1); }

// The transparent huge page size: 2 MiB on x86-64, other sizes on other page geometries.
uint64_t huge_page_size() {
    static const uint64_t size = [] {
        std::ifstream in("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size");
        uint64_t n = 0;
        return (in >> n) && n > 0 ? n : uint64_t(2) << 20;
    }();
    return size;
}

// Pageable memory is calloc'd, not malloc'd + memset: for large sizes glibc maps fresh zero
// pages and touches none of them, exactly like malloc; for small sizes recycled from the heap
// it clears them, so an untouched destination is known to be zero without poisoning it
// (poisoning would be a touch). glibc serves sizes below its mmap threshold (128 KiB, raised
// up to 32 MiB by earlier frees) from the heap, where pages may already be resident, as in any
// malloc-using program.
//
// The data starts at the first page boundary inside the allocation. Two heap chunks allocated
// one after the other sit 16 bytes past a page multiple apart, and memcpy between such
// addresses (4K aliasing) runs several times slower on some CPUs (6x for 4 KiB on AMD Zen 3);
// large malloc'd buffers never have that (both start 16 bytes into a fresh mapping), so page
// alignment keeps the small sizes representative rather than making them pathological.
void release_pageable(void* p, uint64_t) { std::free(p); }

void release_huge(void* p, uint64_t bytes) {
    munmap(p, round_up(alloc_length(bytes), huge_page_size()));
}

void release_numa(void* p, uint64_t bytes) { detail::numa_release(p, alloc_length(bytes)); }

// Anonymous memory aligned to the huge page size (so that every 2 MiB extent can be one huge
// page), with MADV_HUGEPAGE asking the kernel to back it with huge pages on first touch.
void* map_huge(uint64_t bytes) {
    const uint64_t huge = huge_page_size();
    const uint64_t len = round_up(bytes, huge);
    void* raw =
        mmap(nullptr, len + huge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED)
        throw std::runtime_error("hugepage: mmap of " + std::to_string(len) +
                                 " bytes failed: " + std::strerror(errno));
    auto* base = static_cast<std::byte*>(raw);
    auto* start = reinterpret_cast<std::byte*>(round_up(reinterpret_cast<uintptr_t>(base), huge));
    if (start > base) munmap(base, uint64_t(start - base));
    uint64_t tail = huge - uint64_t(start - base);
    if (tail > 0) munmap(start + len, tail);
    if (madvise(start, len, MADV_HUGEPAGE) != 0) {
        int err = errno;
        munmap(start, len);
        throw std::runtime_error(std::string("hugepage: madvise(MADV_HUGEPAGE) failed: ") +
                                 std::strerror(err) +
                                 " (kernel without transparent huge page support?)");
    }
    return start;
}

}  // namespace

uint64_t base_page_size() {
    static const uint64_t size = uint64_t(sysconf(_SC_PAGESIZE));
    return size;
}

uint64_t host_page_size(const HostMemory& kind) {
    return kind.kind == HostMemoryKind::hugepage ? huge_page_size() : base_page_size();
}

uint64_t host_memory_footprint(const HostMemory& kind, uint64_t bytes) {
    // Pageable buffers carry one extra page for their alignment.
    const uint64_t extra = kind.kind == HostMemoryKind::pageable ? base_page_size() : 0;
    return round_up(alloc_length(bytes), host_page_size(kind)) + extra;
}

void check_host_memory(const HostMemory& kind) {
    switch (kind.kind) {
        case HostMemoryKind::pageable:
        case HostMemoryKind::hugepage:
            return;
        case HostMemoryKind::pinned:
        case HostMemoryKind::registered:
        case HostMemoryKind::write_combined:
            throw std::runtime_error("host_memory = " + to_string(kind) +
                                     " needs the cuda backend");
        case HostMemoryKind::numa:
            detail::check_numa_node(kind.numa_node);
            return;
    }
}

HostBuffer HostBuffer::allocate(const HostMemory& kind, uint64_t bytes) {
    check_host_memory(kind);
    const uint64_t n = alloc_length(bytes);
    void* p = nullptr;
    void (*release)(void*, uint64_t) = nullptr;
    switch (kind.kind) {
        case HostMemoryKind::pageable: {
            const uint64_t page = base_page_size();
            void* base = std::calloc(1, n + page);
            if (!base) {
                const int err = errno;
                throw std::runtime_error("pageable: allocating " + std::to_string(n + page) +
                                         " bytes (" + std::to_string((n + page) >> 20) +
                                         " MiB) failed: " + std::strerror(err) +
                                         " (the machine's memory, or a limit such as ulimit -v)");
            }
            HostBuffer b =
                adopt(reinterpret_cast<void*>(round_up(reinterpret_cast<uintptr_t>(base), page)),
                      bytes, kind, release_pageable);
            b.base_ = static_cast<std::byte*>(base);
            return b;
        }
        case HostMemoryKind::hugepage:
            p = map_huge(n);
            release = release_huge;
            break;
        case HostMemoryKind::numa:
            p = detail::numa_allocate(n, kind.numa_node);
            release = release_numa;
            break;
        default:
            break;  // rejected by check_host_memory
    }
    return adopt(p, bytes, kind, release);
}

HostBuffer HostBuffer::adopt(void* data, uint64_t bytes, const HostMemory& kind,
                             void (*release)(void*, uint64_t)) {
    HostBuffer b;
    b.data_ = static_cast<std::byte*>(data);
    b.size_ = bytes;
    b.kind_ = kind;
    b.release_ = release;
    return b;
}

HostBuffer::HostBuffer(HostBuffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)),
      size_(std::exchange(other.size_, 0)),
      kind_(other.kind_),
      release_(std::exchange(other.release_, nullptr)),
      base_(std::exchange(other.base_, nullptr)) {}

HostBuffer& HostBuffer::operator=(HostBuffer&& other) noexcept {
    if (this != &other) {
        if (data_ && release_) release_(base_ ? base_ : data_, size_);
        data_ = std::exchange(other.data_, nullptr);
        size_ = std::exchange(other.size_, 0);
        kind_ = other.kind_;
        release_ = std::exchange(other.release_, nullptr);
        base_ = std::exchange(other.base_, nullptr);
    }
    return *this;
}

HostBuffer::~HostBuffer() {
    if (data_ && release_) release_(base_ ? base_ : data_, size_);
}

void HostBuffer::touch() {
    // One write per base page, also for hugepage memory: where the kernel granted a huge page
    // the extra writes hit an already-mapped page and cost nothing, and where it did not (THP
    // off, no contiguous memory) every 4 KiB page is still faulted in by this thread. An
    // atomic OR of zero is a write to the page that leaves its contents as they were.
    // The last byte too: a buffer that does not start on a page boundary ends in one more page.
    const uint64_t step = base_page_size();
    auto write = [](std::byte* p) {
        __atomic_fetch_or(reinterpret_cast<unsigned char*>(p), 0, __ATOMIC_RELAXED);
    };
    for (uint64_t i = 0; i < size_; i += step) write(data_ + i);
    if (size_ > 0) write(data_ + size_ - 1);
}

bool is_page_locked(HostMemoryKind kind) {
    return kind == HostMemoryKind::pinned || kind == HostMemoryKind::registered ||
           kind == HostMemoryKind::write_combined;
}

}  // namespace xfer
