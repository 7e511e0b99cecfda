// copy_streaming: every byte copied and nothing outside the destination written, for every
// destination and source alignment within a cache line and sizes around each boundary where
// the copy changes strategy (memcpy below four lines, the head up to a line, the tail).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "engine/streaming_copy.hpp"
#include "support/catch.hpp"

using namespace xfer;

namespace {

constexpr unsigned char kGuard = 0x5a;
constexpr size_t kSlack = 64;  // guard bytes before and after the destination

unsigned char source_byte(size_t i) { return static_cast<unsigned char>((i * 131 + 7) % 251); }

// Copies `n` bytes from src_base + src_off to dst_base + kSlack + dst_off with `stores`;
// returns "" or what went wrong (the first wrong byte). Buffers are 64-byte aligned.
std::string check_one(HostStores stores, unsigned char* dst_base, const unsigned char* src_base,
                      size_t dst_off, size_t src_off, size_t n) {
    const size_t span = kSlack + dst_off + n + kSlack;
    std::memset(dst_base, kGuard, span);
    unsigned char* dst = dst_base + kSlack + dst_off;
    host_copy(stores, dst, src_base + src_off, n);
    for (size_t i = 0; i < span; ++i) {
        const bool inside = i >= kSlack + dst_off && i < kSlack + dst_off + n;
        const unsigned char want = inside ? source_byte(src_off + i - kSlack - dst_off) : kGuard;
        if (dst_base[i] != want)
            return std::string(to_string(stores)) + ": n=" + std::to_string(n) +
                   " dst_off=" + std::to_string(dst_off) + " src_off=" + std::to_string(src_off) +
                   ": byte " + std::to_string(i) + " of the span is " +
                   std::to_string(dst_base[i]) + ", expected " + std::to_string(want) +
                   (inside ? "" : " (outside the destination)");
    }
    return "";
}

struct Aligned {
    explicit Aligned(size_t n) : storage(n + 64) {}
    unsigned char* data() {
        auto p = reinterpret_cast<uintptr_t>(storage.data());
        return storage.data() + (64 - p % 64) % 64;
    }
    std::vector<unsigned char> storage;
};

}  // namespace

TEST_CASE("copy_streaming copies every alignment and size exactly, nothing outside", "[memory]") {
    const std::vector<size_t> sizes = {0,   1,   15,  16,  17,   63,   64,   65,
                                       127, 128, 191, 255, 256,  257,  319,  320,
                                       383, 511, 512, 513, 1000, 4096, 4097, 65536 + 37};
    size_t largest = 0;
    for (size_t n : sizes) largest = std::max(largest, n);
    Aligned src(largest + 64), dst(kSlack + 64 + largest + kSlack);
    for (size_t i = 0; i < largest + 64; ++i) src.data()[i] = source_byte(i);

    for (HostStores stores : {HostStores::streaming, HostStores::cached}) {
        std::string first_error;
        size_t copies = 0;
        for (size_t n : sizes)
            for (size_t dst_off = 0; dst_off < 64 && first_error.empty(); ++dst_off)
                for (size_t src_off = 0; src_off < 64 && first_error.empty(); ++src_off) {
                    first_error = check_one(stores, dst.data(), src.data(), dst_off, src_off, n);
                    ++copies;
                }
        INFO(to_string(stores));
        CHECK(first_error == "");
        CHECK(copies == sizes.size() * 64 * 64);
    }
}

TEST_CASE("copy_streaming copies a staging chunk (2 MiB) into a reused buffer", "[memory]") {
    const size_t n = size_t(2) << 20;
    std::vector<unsigned char> src(n + 3), dst(n + 3, kGuard);
    for (size_t i = 0; i < src.size(); ++i) src[i] = source_byte(i);
    copy_streaming(dst.data() + 1, src.data() + 3, n);
    CHECK(dst[0] == kGuard);
    CHECK(std::memcmp(dst.data() + 1, src.data() + 3, n) == 0);
    CHECK(dst[n + 1] == kGuard);
    CHECK(dst[n + 2] == kGuard);
}

TEST_CASE("streaming stores are used on x86-64 and named for the notes", "[memory]") {
#if defined(__x86_64__)
    CHECK(has_streaming_stores());
#endif
    CHECK(std::string(to_string(HostStores::streaming)) == "streaming");
    CHECK(std::string(to_string(HostStores::cached)) == "cached");
}
