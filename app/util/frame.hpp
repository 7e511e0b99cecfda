#pragma once
// Length-prefixed messages over a pipe: 4 bytes of length (little-endian), then the payload.
// Worker processes and their parent talk this way; a message is never split or merged.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace xfer {

// A frame larger than this is refused on both ends: a corrupted length, not real data.
constexpr uint32_t kMaxFrameBytes = 1u << 30;

// Writes one frame; retries on EINTR and short writes. Throws std::system_error (EPIPE when the
// reader is gone: SIGPIPE must be ignored by the caller's process).
void write_frame(int fd, std::string_view payload);

// Reads one frame. nullopt on a clean end of stream before a frame starts; throws
// std::runtime_error on a stream that ends inside a frame or holds an impossible length.
std::optional<std::string> read_frame(int fd);

// Incremental reader for poll() loops: feed what read() returned, take complete frames.
class FrameBuffer {
  public:
    void append(const char* data, size_t n) { buffer_.append(data, n); }
    std::optional<std::string> next();  // throws on an impossible length
    bool empty() const { return buffer_.empty(); }

  private:
    std::string buffer_;
};

}  // namespace xfer
