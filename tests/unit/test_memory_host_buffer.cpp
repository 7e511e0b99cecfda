// Host buffers: each kind allocates what it says, the pattern is exactly pattern_byte, and
// unavailable kinds fail with the reason.
#include <sys/mman.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "memory/host_buffer.hpp"
#include "system/meminfo.hpp"
#include "support/catch.hpp"

using namespace xfer;

namespace {

std::string error_of(const HostMemory& kind, uint64_t bytes) {
    try {
        HostBuffer::allocate(kind, bytes);
    } catch (const std::runtime_error& e) {
        return e.what();
    }
    return "";
}

uint64_t mem_total() {
    std::ifstream in("/proc/meminfo");
    std::string key;
    uint64_t kib = 0;
    in >> key >> kib;  // MemTotal is the first line
    return kib * 1024;
}

}  // namespace

TEST_CASE("fill_pattern writes exactly pattern_byte at every offset, any length", "[memory]") {
    for (uint64_t n : std::vector<uint64_t>{0, 1, 7, 8, 9, 4095, 100003}) {
        std::vector<std::byte> buf(n + 3);
        // Unaligned start: the 8-byte path must not assume alignment.
        std::byte* p = buf.data() + 3;
        fill_pattern(p, n, 5);
        uint64_t wrong = 0;
        for (uint64_t i = 0; i < n; ++i) wrong += p[i] != pattern_byte(5, i);
        CHECK(wrong == 0);
        CHECK(find_pattern_mismatch(p, n, 5) == -1);
    }
}

TEST_CASE("find_pattern_mismatch names the first wrong byte", "[memory]") {
    std::vector<std::byte> buf(1 << 20);
    fill_pattern(buf.data(), buf.size(), 2);
    REQUIRE(find_pattern_mismatch(buf.data(), buf.size(), 2) == -1);
    for (uint64_t off : std::vector<uint64_t>{0, 5, 8, 12345, buf.size() - 1}) {
        std::vector<std::byte> copy = buf;
        copy[off] ^= std::byte{0x40};
        CHECK(find_pattern_mismatch(copy.data(), copy.size(), 2) == int64_t(off));
    }
    // Another worker's pattern differs at the first byte already.
    CHECK(find_pattern_mismatch(buf.data(), buf.size(), 3) == 0);
    // All zeros (a poisoned or never-written destination) never verifies.
    std::vector<std::byte> zeros(4096);
    CHECK(find_pattern_mismatch(zeros.data(), zeros.size(), 0) == 0);
}

TEST_CASE("pageable memory is allocated, zeroed, writable and freed", "[memory]") {
    HostBuffer b = HostBuffer::allocate({HostMemoryKind::pageable, -1}, 3 << 20);
    REQUIRE(b.data() != nullptr);
    CHECK(b.size() == (3u << 20));
    CHECK(b.kind().kind == HostMemoryKind::pageable);
    // Page aligned, so that source and destination never sit at an aliasing distance.
    CHECK(reinterpret_cast<uintptr_t>(b.data()) % base_page_size() == 0);
    HostBuffer small = HostBuffer::allocate({HostMemoryKind::pageable, -1}, 100);
    CHECK(reinterpret_cast<uintptr_t>(small.data()) % base_page_size() == 0);
    CHECK(host_memory_footprint({HostMemoryKind::pageable, -1}, 100) == 2 * base_page_size());
    uint64_t nonzero = 0;
    for (uint64_t i = 0; i < b.size(); ++i) nonzero += b.data()[i] != std::byte{0};
    CHECK(nonzero == 0);
    b.touch();  // keeps contents
    fill_pattern(b.data(), b.size(), 1);
    b.touch();
    CHECK(find_pattern_mismatch(b.data(), b.size(), 1) == -1);

    HostBuffer moved = std::move(b);
    CHECK(b.data() == nullptr);
    CHECK(find_pattern_mismatch(moved.data(), moved.size(), 1) == -1);
}

TEST_CASE("hugepage memory is 2 MiB aligned, rounded, and asks for huge pages", "[memory]") {
    const HostMemory huge{HostMemoryKind::hugepage, -1};
    const uint64_t page = host_page_size(huge);
    CHECK(page >= (2u << 20));
    CHECK(host_memory_footprint(huge, 3 << 20) == 2 * page);
    CHECK(host_memory_footprint(huge, 1) == page);

    HostBuffer b = HostBuffer::allocate(huge, 3 << 20);
    REQUIRE(b.data() != nullptr);
    CHECK(reinterpret_cast<uintptr_t>(b.data()) % page == 0);
    b.touch();
    fill_pattern(b.data(), b.size(), 4);
    CHECK(find_pattern_mismatch(b.data(), b.size(), 4) == -1);
    // The whole rounded mapping belongs to it: writing its last byte must not fault.
    b.data()[2 * page - 1] = std::byte{1};
}

TEST_CASE("a NUMA node that does not exist is refused with the reason", "[memory]") {
    std::string e = error_of({HostMemoryKind::numa, 999}, 4096);
    INFO(e);
    CHECK(e.rfind("numa:999: ", 0) == 0);
    bool reason_known = e.find("this machine has NUMA nodes ") != std::string::npos ||
                        e.find("built without libnuma") != std::string::npos ||
                        e.find("no NUMA support") != std::string::npos;
    CHECK(reason_known);
    CHECK_THROWS_AS(check_host_memory({HostMemoryKind::numa, 999}), std::runtime_error);
}

TEST_CASE("numa:0 memory works where libnuma and node 0 are there", "[memory]") {
    const HostMemory node0{HostMemoryKind::numa, 0};
    try {
        check_host_memory(node0);
    } catch (const std::runtime_error& e) {
        // Only these two reasons may keep node 0 from working.
        std::string why = e.what();
        CHECK((why == "numa:0: built without libnuma" ||
               why.find("no NUMA support") != std::string::npos));
        return;
    }
    HostBuffer b = HostBuffer::allocate(node0, 1 << 20);
    b.touch();
    fill_pattern(b.data(), b.size(), 0);
    CHECK(find_pattern_mismatch(b.data(), b.size(), 0) == -1);
}

TEST_CASE("kinds that need a device runtime name the cuda backend", "[memory]") {
    CHECK(error_of({HostMemoryKind::pinned, -1}, 4096) ==
          "host_memory = pinned needs the cuda backend");
    CHECK(error_of({HostMemoryKind::registered, -1}, 4096) ==
          "host_memory = registered needs the cuda backend");
    CHECK(error_of({HostMemoryKind::write_combined, -1}, 4096) ==
          "host_memory = write-combined needs the cuda backend");
}

TEST_CASE("adopted memory is released by its own function", "[memory]") {
    static int released = 0;
    released = 0;
    {
        void* p = std::malloc(64);
        HostBuffer b =
            HostBuffer::adopt(p, 64, {HostMemoryKind::pinned, -1}, [](void* q, uint64_t n) {
                CHECK(n == 64);
                std::free(q);
                ++released;
            });
        CHECK(b.data() == p);
        HostBuffer other;
        other = std::move(b);
        CHECK(released == 0);
    }
    CHECK(released == 1);
}

TEST_CASE("available_host_memory reads MemAvailable", "[memory]") {
    uint64_t avail = available_host_memory();
    CHECK(avail > 0);
    CHECK(avail <= mem_total());
}
