#include "util/frame.hpp"

#include <unistd.h>

#include <cerrno>
#include <stdexcept>
#include <system_error>

namespace xfer {
namespace {

void write_all(int fd, const char* p, size_t n) {
    while (n > 0) {
        ssize_t w = ::write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            throw std::system_error(errno, std::generic_category(), "write to pipe");
        }
        p += w;
        n -= size_t(w);
    }
}

// Reads exactly n bytes; returns how many arrived before end of stream.
size_t read_all(int fd, char* p, size_t n) {
    size_t got = 0;
    while (got < n) {
        ssize_t r = ::read(fd, p + got, n - got);
        if (r < 0) {
            if (errno == EINTR) continue;
            throw std::system_error(errno, std::generic_category(), "read from pipe");
        }
        if (r == 0) break;
        got += size_t(r);
    }
    return got;
}

uint32_t decode_length(const unsigned char* b) {
    return uint32_t(b[0]) | uint32_t(b[1]) << 8 | uint32_t(b[2]) << 16 | uint32_t(b[3]) << 24;
}

void check_length(uint32_t n) {
    if (n > kMaxFrameBytes)
        throw std::runtime_error("message length " + std::to_string(n) + " is impossible");
}

}  // namespace

void write_frame(int fd, std::string_view payload) {
    if (payload.size() > kMaxFrameBytes) throw std::runtime_error("message too large to send");
    const auto n = uint32_t(payload.size());
    std::string frame;
    frame.reserve(4 + payload.size());
    for (int i = 0; i < 4; ++i) frame.push_back(char((n >> (8 * i)) & 0xff));
    frame.append(payload);
    write_all(fd, frame.data(), frame.size());
}

std::optional<std::string> read_frame(int fd) {
    unsigned char header[4];
    size_t got = read_all(fd, reinterpret_cast<char*>(header), 4);
    if (got == 0) return std::nullopt;
    if (got < 4) throw std::runtime_error("stream ended inside a message header");
    const uint32_t n = decode_length(header);
    check_length(n);
    std::string payload(n, '\0');
    if (read_all(fd, payload.data(), n) < n)
        throw std::runtime_error("stream ended inside a message");
    return payload;
}

std::optional<std::string> FrameBuffer::next() {
    if (buffer_.size() < 4) return std::nullopt;
    const uint32_t n = decode_length(reinterpret_cast<const unsigned char*>(buffer_.data()));
    check_length(n);
    if (buffer_.size() < 4 + size_t(n)) return std::nullopt;
    std::string payload = buffer_.substr(4, n);
    buffer_.erase(0, 4 + size_t(n));
    return payload;
}

}  // namespace xfer
