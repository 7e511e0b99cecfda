#include "backend/cuda/cupti_tracer.hpp"

#include <cupti.h>

#include <cstdlib>
#include <cstring>
#include <limits>
#include <mutex>
#include <stdexcept>

#include "backend/cuda/correlation_slot.hpp"
#include "backend/cuda/cupti_check.hpp"
#include "backend/cuda/cupti_errors.hpp"
#include "backend/gil_probe.hpp"
#include "util/clock.hpp"

namespace xfer::cuda {
namespace {

// Activity buffers: a pool allocated once, so that CUPTI's requests during a run are served
// without malloc (a request arrives from whichever thread CUPTI is on, possibly a worker's).
constexpr size_t kBufferBytes = size_t(4) << 20;  // ~40k memcpy records each
constexpr int kPoolBuffers = 8;
constexpr size_t kAlign = 8;  // ACTIVITY_RECORD_ALIGNMENT

// A payload's w.timed() block open on this thread: every memcpy API call it makes is counted
// (outermost calls only: a runtime call's own driver calls are part of it), its GIL state
// probed, and each correlation id kept so that the activity records join to the block's tag.
struct TimedCapture {
    bool active = false;
    uint32_t tag = 0;
    int depth = 0;
    int calls = 0;
    int gil_held = 0;
    std::vector<uint32_t> ids;
};
thread_local TimedCapture tl_capture;

// Every block's ids -> its tag, handed to the backend at the end of the run.
struct CaptureAliases {
    std::mutex mutex;
    std::vector<std::pair<uint32_t, uint32_t>> aliases;
};
CaptureAliases& capture_aliases() {
    static CaptureAliases* a = new CaptureAliases;  // leaked, like Shared
    return *a;
}

// Shared with CUPTI's callbacks. Leaked on purpose: CUPTI may deliver buffers while the process
// exits, after static destructors ran.
struct Shared {
    std::mutex mutex;
    std::vector<uint8_t*> free_buffers;
    std::vector<MemcpyActivity> copies;
    uint64_t incomplete = 0;
    uint64_t dropped = 0;
    int extra_buffers = 0;
};
Shared& shared() {
    static Shared* s = new Shared;
    return *s;
}

uint8_t* new_buffer() { return static_cast<uint8_t*>(std::aligned_alloc(kAlign, kBufferBytes)); }

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
    Shared& s = shared();
    uint8_t* b = nullptr;
    {
        std::lock_guard<std::mutex> lock(s.mutex);
        if (!s.free_buffers.empty()) {
            b = s.free_buffers.back();
            s.free_buffers.pop_back();
        } else {
            ++s.extra_buffers;
        }
    }
    if (!b) b = new_buffer();  // pool exhausted: counted, reported after the run
    *buffer = b;
    *size = b ? kBufferBytes : 0;
    *max_records = 0;
}

MemcpyActivity from_record(const CUpti_ActivityMemcpy6& r) {
    MemcpyActivity a;
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

MemcpyActivity from_record(const CUpti_ActivityMemcpyPtoP4& r) {
    MemcpyActivity a;
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
    a.peer = true;
    return a;
}

// Runs on CUPTI's thread (or the flushing thread): parse, keep what we join, recycle.
void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
    Shared& s = shared();
    std::lock_guard<std::mutex> lock(s.mutex);
    CUpti_Activity* record = nullptr;
    while (valid > 0 && cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
        MemcpyActivity a;
        if (record->kind == CUPTI_ACTIVITY_KIND_MEMCPY)
            a = from_record(*reinterpret_cast<const CUpti_ActivityMemcpy6*>(record));
        else if (record->kind == CUPTI_ACTIVITY_KIND_MEMCPY2)
            a = from_record(*reinterpret_cast<const CUpti_ActivityMemcpyPtoP4*>(record));
        else
            continue;
        if (a.start == 0 && a.end == 0) {
            ++s.incomplete;
            continue;
        }
        s.copies.push_back(a);
    }
    size_t dropped = 0;
    if (cuptiActivityGetNumDroppedRecords(nullptr, 0, &dropped) == CUPTI_SUCCESS)
        s.dropped += dropped;
    if (buffer) s.free_buffers.push_back(buffer);
}

void capture_call(const CUpti_CallbackData& cb) {
    TimedCapture& c = tl_capture;
    if (cb.callbackSite != CUPTI_API_ENTER) {
        if (c.depth > 0) --c.depth;
        return;
    }
    if (c.depth++ == 0) {
        ++c.calls;
        if (gil_held_by_caller() == 1) ++c.gil_held;
    }
    c.ids.push_back(cb.correlationId);
}

// Entry and exit of every traced memcpy call (runtime or driver API), on the calling thread:
// remember the runtime call's correlation id for the copy routine, and feed an open timed block.
// Only the memcpy callbacks are enabled (enable_callbacks), so nothing else lands here.
void CUPTIAPI on_runtime_api(void*, CUpti_CallbackDomain domain, CUpti_CallbackId,
                             const void* data) {
    if (!data) return;
    const auto* cb = static_cast<const CUpti_CallbackData*>(data);
    if (domain == CUPTI_CB_DOMAIN_RUNTIME_API && cb->callbackSite == CUPTI_API_ENTER)
        correlation::set(cb->correlationId);
    if (tl_capture.active) capture_call(*cb);
}

// The memcpy calls of a domain, by name: every cudaMemcpy*/cuMemcpy* variant this CUPTI knows
// (2D, 3D, peer, batch, per-thread stream), whichever one a framework uses.
std::vector<CUpti_CallbackId> memcpy_callbacks(CUpti_CallbackDomain domain, uint32_t count) {
    std::vector<CUpti_CallbackId> ids;
    for (uint32_t id = 1; id < count; ++id) {
        const char* name = nullptr;
        if (cuptiGetCallbackName(domain, id, &name) != CUPTI_SUCCESS || !name) continue;
        if (std::strstr(name, "emcpy")) ids.push_back(id);
    }
    return ids;
}

// CUPTI's timestamps taken on our clock: device timestamps are then converted by CUPTI itself
// onto CLOCK_MONOTONIC, the clock of every host timestamp in xferlab.
uint64_t CUPTIAPI monotonic_timestamp() { return uint64_t(now_ns()); }

// CLOCK_MONOTONIC - CUPTI clock, from the tightest of several back-to-back samples.
int64_t sample_cupti_offset() {
    int64_t best_gap = std::numeric_limits<int64_t>::max();
    int64_t best = 0;
    for (int i = 0; i < 16; ++i) {
        uint64_t c = 0;
        int64_t t0 = now_ns();
        if (cuptiGetTimestamp(&c) != CUPTI_SUCCESS) continue;
        int64_t t1 = now_ns();
        if (t1 - t0 < best_gap) {
            best_gap = t1 - t0;
            best = t0 + (t1 - t0) / 2 - int64_t(c);
        }
    }
    return best;
}

int64_t sample_realtime_offset() {
    timespec ts;
    int64_t t0 = now_ns();
    clock_gettime(CLOCK_REALTIME, &ts);
    int64_t t1 = now_ns();
    return t0 + (t1 - t0) / 2 - (int64_t(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec);
}

}  // namespace

CuptiTracer& CuptiTracer::instance() {
    static CuptiTracer* tracer = new CuptiTracer;  // leaked: see Shared
    return *tracer;
}

void CuptiTracer::reset_last_correlation() noexcept { correlation::reset(); }
uint32_t CuptiTracer::last_correlation() noexcept { return correlation::last(); }

const std::string& CuptiTracer::setup() {
    if (setup_done_) return setup_error_;
    setup_done_ = true;
    try {
        // Before any activity kind is enabled, as CUPTI requires. Not fatal: without it the
        // offset sampled around each run converts CUPTI's clock instead.
        timestamp_callback_ =
            cuptiActivityRegisterTimestampCallback(monotonic_timestamp) == CUPTI_SUCCESS;
        {
            Shared& s = shared();
            std::lock_guard<std::mutex> lock(s.mutex);
            for (int i = 0; i < kPoolBuffers; ++i)
                if (uint8_t* b = new_buffer()) s.free_buffers.push_back(b);
            s.copies.reserve(size_t(1) << 16);
        }
        XFER_CUPTI(cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed));
        CUpti_SubscriberHandle sub = nullptr;
        CUptiResult res = cuptiSubscribe(&sub, on_runtime_api, nullptr);
        if (res == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED)
            throw std::runtime_error(
                "another CUPTI client already subscribed in this process (a profiler such as "
                "nsys or ncu, or a library's tracer): copies cannot be correlated");
        XFER_CUPTI(res);
        subscriber_ = sub;
    } catch (const std::exception& e) {
        setup_error_ = std::string("CUPTI unavailable: ") + e.what();
    }
    return setup_error_;
}

void CuptiTracer::enable_callbacks(bool on) {
    auto sub = static_cast<CUpti_SubscriberHandle>(subscriber_);
    static const auto runtime =
        memcpy_callbacks(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_SIZE);
    static const auto driver =
        memcpy_callbacks(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_SIZE);
    for (CUpti_CallbackId id : runtime)
        XFER_CUPTI(cuptiEnableCallback(on ? 1 : 0, sub, CUPTI_CB_DOMAIN_RUNTIME_API, id));
    for (CUpti_CallbackId id : driver)
        XFER_CUPTI(cuptiEnableCallback(on ? 1 : 0, sub, CUPTI_CB_DOMAIN_DRIVER_API, id));
}

uint32_t CuptiTracer::open_capture_tag() noexcept { return tl_capture.active ? tl_capture.tag : 0; }

void CuptiTracer::join_to_capture(const std::vector<std::pair<uint32_t, uint32_t>>& aliases) {
    if (aliases.empty()) return;
    CaptureAliases& a = capture_aliases();
    std::lock_guard<std::mutex> lock(a.mutex);
    a.aliases.insert(a.aliases.end(), aliases.begin(), aliases.end());
}

void CuptiTracer::begin_capture(uint32_t tag) {
    TimedCapture& c = tl_capture;
    c = TimedCapture{};
    c.ids.reserve(64);
    c.tag = tag;
    c.active = true;
}

CapturedCalls CuptiTracer::end_capture() {
    TimedCapture& c = tl_capture;
    c.active = false;
    CapturedCalls out{c.calls, c.gil_held};
    if (!c.ids.empty()) {
        CaptureAliases& a = capture_aliases();
        std::lock_guard<std::mutex> lock(a.mutex);
        for (uint32_t id : c.ids) a.aliases.emplace_back(id, c.tag);
    }
    c.ids.clear();
    return out;
}

std::vector<std::pair<uint32_t, uint32_t>> CuptiTracer::take_capture_aliases() {
    CaptureAliases& a = capture_aliases();
    std::lock_guard<std::mutex> lock(a.mutex);
    std::vector<std::pair<uint32_t, uint32_t>> out;
    out.swap(a.aliases);
    return out;
}

void CuptiTracer::start() {
    if (!usable()) throw std::runtime_error(setup_error_);
    if (active_) (void)stop();  // a run that never reached end_run: discard its records
    {
        Shared& s = shared();
        std::lock_guard<std::mutex> lock(s.mutex);
        s.copies.clear();
        s.incomplete = 0;
        s.dropped = 0;
        s.extra_buffers = 0;
    }
    size_t ignored = 0;  // reset the dropped counter
    (void)cuptiActivityGetNumDroppedRecords(nullptr, 0, &ignored);
    enable_callbacks(true);
    XFER_CUPTI(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY));
    XFER_CUPTI(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY2));
    offset_begin_ = sample_cupti_offset();
    active_ = true;
}

TraceResult CuptiTracer::stop() {
    TraceResult out;
    if (!active_) return out;
    active_ = false;
    out.offset_end_ns = sample_cupti_offset();
    out.offset_begin_ns = offset_begin_;
    out.realtime_offset_ns = sample_realtime_offset();
    out.timestamp_callback = timestamp_callback_;
    // Every copy has completed (each one synchronized before returning), so a normal flush
    // delivers complete records; the forced one hands back the partly filled buffers too.
    std::string error;
    auto note_error = [&](CUptiResult r, const char* call) {
        if (r != CUPTI_SUCCESS && error.empty()) error = cupti_error_message(int(r), call);
    };
    note_error(cuptiActivityFlushAll(0), "cuptiActivityFlushAll");
    note_error(cuptiActivityDisable(CUPTI_ACTIVITY_KIND_MEMCPY), "cuptiActivityDisable");
    note_error(cuptiActivityDisable(CUPTI_ACTIVITY_KIND_MEMCPY2), "cuptiActivityDisable");
    note_error(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), "cuptiActivityFlushAll");
    try {
        enable_callbacks(false);
    } catch (const std::exception& e) {
        if (error.empty()) error = e.what();
    }
    size_t dropped = 0;
    if (cuptiActivityGetNumDroppedRecords(nullptr, 0, &dropped) != CUPTI_SUCCESS) dropped = 0;
    {
        Shared& s = shared();
        std::lock_guard<std::mutex> lock(s.mutex);
        out.copies.swap(s.copies);
        s.copies.clear();
        s.copies.reserve(size_t(1) << 16);
        out.incomplete = s.incomplete;
        out.dropped = s.dropped + dropped;
        out.extra_buffers = s.extra_buffers;
    }
    // Offsets from either end of the run agree unless a clock was stepped; use their mean.
    out.clock_offset_ns = out.offset_begin_ns + (out.offset_end_ns - out.offset_begin_ns) / 2;
    if (!error.empty()) throw std::runtime_error(error);
    return out;
}

}  // namespace xfer::cuda
