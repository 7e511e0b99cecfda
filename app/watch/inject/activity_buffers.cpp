#include "watch/inject/activity_buffers.hpp"

#include <cupti.h>

#include <cstdlib>
#include <mutex>
#include <vector>

#include "watch/capture.hpp"

namespace xfer::watch {
namespace {

struct Pool {
    std::mutex mutex;
    std::vector<uint8_t*> free;
    int allocated = 0;
    ActivityCounts counts;
};
Pool& pool() {
    static Pool* p = new Pool;  // leaked: buffers may complete while the process exits
    return *p;
}

void CUPTIAPI request_buffer(uint8_t** buffer, size_t* size, size_t* max_records) {
    Pool& p = pool();
    uint8_t* b = nullptr;
    {
        std::lock_guard lock(p.mutex);
        if (!p.free.empty()) {
            b = p.free.back();
            p.free.pop_back();
        } else if (p.allocated < kMaxBuffers) {
            b = static_cast<uint8_t*>(std::aligned_alloc(8, kBufferBytes));
            if (b) ++p.allocated;
        }
        if (!b) ++p.counts.refused_buffers;
    }
    *buffer = b;
    *size = b ? kBufferBytes : 0;
    *max_records = 0;
}

xw_memcpy from(const CUpti_ActivityMemcpy6& r) {
    xw_memcpy a{};
    a.correlation = r.correlationId;
    a.runtime_correlation = r.runtimeCorrelationId;
    a.start = r.start;
    a.end = r.end;
    a.bytes = r.bytes;
    a.device = r.deviceId;
    a.context = r.contextId;
    a.stream = r.streamId;
    a.copy_kind = r.copyKind;
    a.src_kind = r.srcKind;
    a.dst_kind = r.dstKind;
    return a;
}

xw_memcpy from(const CUpti_ActivityMemcpyPtoP4& r) {
    xw_memcpy a{};
    a.correlation = r.correlationId;
    a.start = r.start;
    a.end = r.end;
    a.bytes = r.bytes;
    a.device = r.deviceId;
    a.context = r.contextId;
    a.stream = r.streamId;
    a.copy_kind = r.copyKind;
    a.src_kind = r.srcKind;
    a.dst_kind = r.dstKind;
    a.flags = XW_COPY_PEER;
    a.src_device = r.srcDeviceId;
    a.dst_device = r.dstDeviceId;
    return a;
}

xw_memset from(const CUpti_ActivityMemset4& r) {
    xw_memset a{};
    a.correlation = r.correlationId;
    a.value = r.value;
    a.start = r.start;
    a.end = r.end;
    a.bytes = r.bytes;
    a.device = r.deviceId;
    a.context = r.contextId;
    a.stream = r.streamId;
    a.memory_kind = uint8_t(r.memoryKind);
    return a;
}

// On CUPTI's thread (or the flushing one): every record to the file, the buffer to the pool.
void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
    Capture& capture = Capture::instance();
    CUpti_Activity* record = nullptr;
    uint64_t incomplete = 0;
    while (buffer && valid > 0 &&
           cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
        if (record->kind == CUPTI_ACTIVITY_KIND_MEMCPY ||
            record->kind == CUPTI_ACTIVITY_KIND_MEMCPY2) {
            const xw_memcpy a =
                record->kind == CUPTI_ACTIVITY_KIND_MEMCPY
                    ? from(*reinterpret_cast<const CUpti_ActivityMemcpy6*>(record))
                    : from(*reinterpret_cast<const CUpti_ActivityMemcpyPtoP4*>(record));
            if (a.start == 0 && a.end == 0)
                ++incomplete;
            else
                capture.memcpy_activity(a);
        } else if (record->kind == CUPTI_ACTIVITY_KIND_MEMSET) {
            const xw_memset a = from(*reinterpret_cast<const CUpti_ActivityMemset4*>(record));
            if (a.start == 0 && a.end == 0)
                ++incomplete;
            else
                capture.memset_activity(a);
        }
    }
    size_t dropped = 0;
    if (cuptiActivityGetNumDroppedRecords(nullptr, 0, &dropped) != CUPTI_SUCCESS) dropped = 0;
    Pool& p = pool();
    std::lock_guard lock(p.mutex);
    p.counts.incomplete += incomplete;
    p.counts.dropped += dropped;
    if (buffer) p.free.push_back(buffer);
}

}  // namespace

void register_activity_buffers() {
    cuptiActivityRegisterCallbacks(request_buffer, buffer_completed);
}

ActivityCounts activity_counts() {
    Pool& p = pool();
    std::lock_guard lock(p.mutex);
    return p.counts;
}

}  // namespace xfer::watch
