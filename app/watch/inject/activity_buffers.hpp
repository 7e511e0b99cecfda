#pragma once
// CUPTI's activity buffers for the injected library: handed out from a pool that grows on
// demand up to a cap (kMaxBuffers x kBufferBytes), so that the program's memory stays bounded
// however many copies it makes; a request past the cap is refused (CUPTI then drops records
// and counts them, and the record file's XW_END says how many). Each completed buffer's memcpy
// and memset records go to the Capture as they arrive, and the buffer back to the pool.
#include <cstdint>

namespace xfer::watch {

constexpr uint64_t kBufferBytes = uint64_t(2) << 20;
constexpr int kMaxBuffers = 16;

// cuptiActivityRegisterCallbacks(request_buffer, buffer_completed).
void register_activity_buffers();

// Buffers refused at the cap, records without timestamps, and CUPTI's dropped count so far.
struct ActivityCounts {
    uint64_t refused_buffers = 0;
    uint64_t incomplete = 0;
    uint64_t dropped = 0;
};
ActivityCounts activity_counts();

}  // namespace xfer::watch
