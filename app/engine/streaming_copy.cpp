#include "engine/streaming_copy.hpp"

#include <cstdint>
#include <cstring>

#if defined(__x86_64__) || defined(_M_X64)
#include <emmintrin.h>  // SSE2: _mm_stream_si128, _mm_loadu_si128, _mm_sfence
#define XFER_STREAMING_STORES 1
#endif

namespace xfer {

namespace {

constexpr size_t kLine = 64;
// Below this the fence and the head/tail split cost more than the read-for-ownership saved.
constexpr size_t kMinStreaming = 4 * kLine;

}  // namespace

const char* to_string(HostStores stores) {
    return stores == HostStores::streaming ? "streaming" : "cached";
}

bool has_streaming_stores() {
#ifdef XFER_STREAMING_STORES
    return true;
#else
    return false;
#endif
}

void copy_streaming(void* dst, const void* src, size_t n) {
#ifdef XFER_STREAMING_STORES
    if (n < kMinStreaming) {
        std::memcpy(dst, src, n);
        return;
    }
    auto* d = static_cast<unsigned char*>(dst);
    auto* s = static_cast<const unsigned char*>(src);
    // Head: up to the destination's next line boundary, so that each group of four 16-byte
    // streaming stores fills one whole line (a partial line would be written piecemeal).
    const size_t head = (kLine - reinterpret_cast<uintptr_t>(d) % kLine) % kLine;
    std::memcpy(d, s, head);
    d += head;
    s += head;
    n -= head;
    const size_t body = n - n % kLine;
    for (size_t i = 0; i < body; i += kLine) {
        // The source may have any alignment: unaligned loads (as fast as aligned ones when the
        // address happens to be aligned).
        const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i));
        const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i + 16));
        const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i + 32));
        const __m128i e = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i + 48));
        _mm_stream_si128(reinterpret_cast<__m128i*>(d + i), a);
        _mm_stream_si128(reinterpret_cast<__m128i*>(d + i + 16), b);
        _mm_stream_si128(reinterpret_cast<__m128i*>(d + i + 32), c);
        _mm_stream_si128(reinterpret_cast<__m128i*>(d + i + 48), e);
    }
    std::memcpy(d + body, s + body, n - body);
    // Streaming stores are weakly ordered: without the fence a DMA started next, or a thread
    // woken next, could read a line still sitting in a write-combining buffer.
    _mm_sfence();
#else
    std::memcpy(dst, src, n);
#endif
}

void host_copy(HostStores stores, void* dst, const void* src, size_t n) {
    if (stores == HostStores::streaming)
        copy_streaming(dst, src, n);
    else
        std::memcpy(dst, src, n);
}

}  // namespace xfer
