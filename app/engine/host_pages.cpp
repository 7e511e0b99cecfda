#include "engine/host_pages.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>

// Linux's values (include/uapi/asm-generic/mman-common.h), for headers older than 5.14's.
#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

namespace xfer {

namespace {

// The pages holding [p, p + len): madvise wants a page-aligned start.
struct Pages {
    void* start;
    size_t len;
};
Pages pages_of(const void* p, size_t len) {
    static const uintptr_t page = uintptr_t(sysconf(_SC_PAGESIZE));
    const uintptr_t begin = reinterpret_cast<uintptr_t>(p) & ~(page - 1);
    const uintptr_t end = reinterpret_cast<uintptr_t>(p) + len;
    return {reinterpret_cast<void*>(begin), size_t(end - begin)};
}

// Whether the kernel took `advice` (false once it said EINVAL: it does not know it, e.g. before
// 5.14 or under gVisor; asked no more then).
bool advise(std::atomic<bool>& known, const void* p, size_t len, int advice) {
    if (!known.load(std::memory_order_relaxed)) return false;
    const Pages pages = pages_of(p, len);
    if (madvise(pages.start, pages.len, advice) == 0) return true;
    if (errno == EINVAL) known.store(false, std::memory_order_relaxed);
    return false;
}

std::atomic<bool> g_populate_read{true};
std::atomic<bool> g_populate_write{true};
std::atomic<bool> g_will_need{true};

}  // namespace

void advise_will_need(const void* p, size_t len) {
    if (len > 0) advise(g_will_need, p, len, MADV_WILLNEED);
}

void populate_for_reading(const void* p, size_t len) {
    if (len == 0 || advise(g_populate_read, p, len, MADV_POPULATE_READ)) return;
    static const size_t page = size_t(sysconf(_SC_PAGESIZE));
    const auto* bytes = static_cast<const volatile unsigned char*>(p);
    for (size_t at = 0; at < len; at += page) (void)bytes[at];
    (void)bytes[len - 1];
}

void populate_for_writing(void* p, size_t len) {
    if (len > 0) advise(g_populate_write, p, len, MADV_POPULATE_WRITE);
}

}  // namespace xfer
