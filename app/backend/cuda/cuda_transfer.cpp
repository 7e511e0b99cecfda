#include "backend/cuda/cuda_transfer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "backend/cuda/correlation_slot.hpp"
#include "backend/cuda/cupti_tracer.hpp"
#include "backend/cuda/host_memory.hpp"
#include "backend/cuda/pattern_chunks.hpp"
#include "backend/cuda/worker_context.hpp"
#include "engine/cuda/cuda_check.hpp"
#include "util/clock.hpp"

namespace xfer::cuda {
namespace {

// Written over destinations before the run. The pattern varies with the offset, so a
// destination still holding the poison cannot verify.
constexpr unsigned char kPoison = 0xA5;
// Device buffers are filled and read back through a host staging chunk of this size.
constexpr uint64_t kStagingBytes = uint64_t(64) << 20;

// Staged copies are joined to the CUPTI records of their chunks through an id of their own,
// from a range CUPTI's ids (counting from 1 per process) do not reach.
uint32_t next_staged_tag() {
    static std::atomic<uint32_t> next{0xC0000000u};
    return next.fetch_add(1, std::memory_order_relaxed);
}

// A payload's w.timed() blocks likewise, from a range of their own.
uint32_t next_timed_block_tag() {
    static std::atomic<uint32_t> next{0xB0000000u};
    return next.fetch_add(1, std::memory_order_relaxed);
}

// One end of a copy: device memory, or host memory of the scenario's kind.
struct Endpoint {
    bool on_device = false;
    int device = -1;  // the device holding it (device memory only)
    void* device_ptr = nullptr;
    HostBuffer host;
    void* ptr() const { return on_device ? device_ptr : static_cast<void*>(host.data()); }
};

class CudaTransfer final : public WorkerTransfer {
  public:
    explicit CudaTransfer(const TransferPlan& plan);
    ~CudaTransfer() override;

    void attach_thread() override;
    CopyOutcome copy() override;
    uint32_t begin_timed_block() override;
    TimedBlockCalls end_timed_block() override;
    int64_t verify() override;
    void poison_destination() override;
    int device() const override { return plan_.device; }
    uint64_t bytes() const override { return plan_.spec.bytes; }
    const void* host_side() const override {
        if (!src_.on_device) return src_.host.data();
        return dst_.on_device ? nullptr : dst_.host.data();
    }
    void corrupt_destination_for_test(uint64_t offset) override;

  private:
    void allocate(Endpoint& e, bool on_device, int device);
    void touch_host_buffers();  // fill the host source, poison the host destination
    void pin_host_buffers();    // register `registered` memory; note page-locked placement
    void register_for_path();   // path = "register": cudaHostRegister the host buffer, timed
    CopyOutcome staged_copy();
    void upload_pattern(const Endpoint& e);
    void release() noexcept;
    void release_in_context();  // throws only when a per-worker context cannot be bound
    // The device's primary context (cudaSetDevice), or nothing with a per-worker context: the
    // caller's ContextScope (main thread) or make_current (worker thread) bound that already.
    void bind(int device) const;
    [[noreturn]] void fail(cudaError_t err, const char* call) const;

    TransferPlan plan_;
    uint64_t n_ = 0;  // bytes allocated: at least 1, so that every pointer is valid
    Endpoint src_, dst_;
    cudaMemcpyKind kind_ = cudaMemcpyDefault;
    bool p2p_ = false;
    // A plain cudaMemcpy may return before its bytes arrived: device-to-device copies and
    // copies from pageable memory (once staged) are asynchronous to the host. copy() then
    // waits on the legacy stream, where cudaMemcpy runs, so that it returns only when done.
    bool sync_after_memcpy_ = false;
    bool host_touched_ = false;      // host buffers written by the first-touch policy
    bool host_pinned_ = false;       // host pages resident and pinned: placement is decided
    bool source_patterned_ = false;  // the source holds the pattern (else: verify vs source)
    bool attached_ = false;
    cudaStream_t stream_ = nullptr;
    bool own_stream_ = false;
    cudaEvent_t ev_start_ = nullptr;
    cudaEvent_t ev_end_ = nullptr;
    std::unique_ptr<WorkerContext> context_;  // transfer.context = "per-worker"
    std::vector<void*> path_registered_;      // path = "register": unregistered on release
};

CudaTransfer::CudaTransfer(const TransferPlan& plan) : plan_(plan) {
    const TransferSpec& t = plan_.spec;
    n_ = std::max<uint64_t>(t.bytes, 1);
    if (t.context == ContextKind::per_worker)
        context_ = std::make_unique<WorkerContext>(plan_.device, plan_.worker);
    try {
        ContextScope scope(context_.get());
        bind(plan_.device);
        switch (t.direction) {
            case Direction::h2d:
                allocate(src_, false, -1);
                allocate(dst_, true, plan_.device);
                kind_ = cudaMemcpyHostToDevice;
                sync_after_memcpy_ =
                    !is_page_locked(t.host_memory.kind) && t.path != CopyPath::register_;
                break;
            case Direction::d2h:
                allocate(src_, true, plan_.device);
                allocate(dst_, false, -1);
                kind_ = cudaMemcpyDeviceToHost;
                break;
            case Direction::d2d:
                allocate(src_, true, plan_.device);
                allocate(dst_, true, plan_.device);
                kind_ = cudaMemcpyDeviceToDevice;
                sync_after_memcpy_ = true;
                break;
            case Direction::h2h:
                allocate(src_, false, -1);
                allocate(dst_, false, -1);
                kind_ = cudaMemcpyHostToHost;
                break;
            case Direction::p2p:
                if (plan_.peer < 0 || plan_.peer == plan_.device)
                    throw std::runtime_error("p2p needs a destination device other than device " +
                                             std::to_string(plan_.device));
                allocate(src_, true, plan_.device);
                allocate(dst_, true, plan_.peer);
                p2p_ = true;
                sync_after_memcpy_ = true;
                break;
        }
        // Pinned and write-combined memory is resident from allocation on; registered memory
        // once pin_host_buffers() registered it.
        const HostMemoryKind hk = t.host_memory.kind;
        host_pinned_ = hk == HostMemoryKind::pinned || hk == HostMemoryKind::write_combined;
        // Device memory has no first-touch placement: a device source gets its pattern now,
        // from the main thread, through a staging chunk (only when it will be checked).
        if (src_.on_device && t.verify) {
            upload_pattern(src_);
            source_patterned_ = true;
        }
        const bool has_host = !src_.on_device || !dst_.on_device;
        if (has_host && t.first_touch == FirstTouch::main) {
            touch_host_buffers();  // the main thread faults in (and places) the host pages
        }
        if (t.first_touch != FirstTouch::worker) {
            // Pinning faults in every page not yet resident: with first_touch = "none" the main
            // thread's cudaHostRegister is the first touch of registered memory.
            pin_host_buffers();
        }
        bind(plan_.device);
        // The pattern upload ran on the legacy stream; the worker may copy on a non-blocking
        // stream that does not wait for it.
        XFER_CUDA(plan_.device, plan_.worker, cudaDeviceSynchronize());
    } catch (...) {
        release();
        throw;
    }
}

CudaTransfer::~CudaTransfer() { release(); }

void CudaTransfer::release() noexcept {
    try {
        release_in_context();
    } catch (const std::exception&) {
        // The context could not be made current: destroying it below frees what it holds.
    }
    context_.reset();
}

void CudaTransfer::release_in_context() {
    auto quiet = [](cudaError_t e) {
        if (e != cudaSuccess) (void)cudaGetLastError();
    };
    ContextScope scope(context_.get());
    if (plan_.device >= 0 && !context_) quiet(cudaSetDevice(plan_.device));
    if (ev_start_) quiet(cudaEventDestroy(ev_start_));
    if (ev_end_) quiet(cudaEventDestroy(ev_end_));
    if (own_stream_ && stream_) quiet(cudaStreamDestroy(stream_));
    ev_start_ = ev_end_ = nullptr;
    stream_ = nullptr;
    own_stream_ = false;
    for (void* p : path_registered_) quiet(cudaHostUnregister(p));
    path_registered_.clear();
    for (Endpoint* e : {&src_, &dst_}) {
        if (e->on_device && e->device_ptr) {
            if (!context_) quiet(cudaSetDevice(e->device));
            quiet(cudaFree(e->device_ptr));
            e->device_ptr = nullptr;
        }
        e->host = HostBuffer();  // its release function frees (and unregisters) it
    }
}

void CudaTransfer::bind(int device) const {
    if (!context_) XFER_CUDA(device, plan_.worker, cudaSetDevice(device));
}

void CudaTransfer::fail(cudaError_t err, const char* call) const {
    throw_cuda_error(err, call, plan_.device, plan_.worker);
}

void CudaTransfer::allocate(Endpoint& e, bool on_device, int device) {
    e.on_device = on_device;
    if (on_device) {
        e.device = device;
        bind(device);
        XFER_CUDA(device, plan_.worker, cudaMalloc(&e.device_ptr, n_));
    } else {
        e.host = allocate_host_memory(plan_.spec.host_memory, plan_.spec.bytes, plan_.device,
                                      plan_.worker);
    }
}

void CudaTransfer::touch_host_buffers() {
    const uint64_t bytes = plan_.spec.bytes;
    if (!src_.on_device && bytes > 0) {
        fill_pattern(src_.host.data(), bytes, plan_.worker);
        source_patterned_ = true;
    }
    if (!dst_.on_device && bytes > 0) std::memset(dst_.host.data(), kPoison, bytes);
    host_touched_ = true;
}

// Registered memory is pinned now (cudaHostRegister, by the calling thread); pinned and
// write-combined memory was pinned when allocated. Either way its placement is settled.
void CudaTransfer::pin_host_buffers() {
    if (src_.on_device && dst_.on_device) return;
    if (plan_.spec.path == CopyPath::register_) {
        register_for_path();
        return;
    }
    if (!host_pinned_) {
        if (!src_.on_device) register_host_memory(src_.host, plan_.device, plan_.worker);
        if (!dst_.on_device) register_host_memory(dst_.host, plan_.device, plan_.worker);
    }
    host_pinned_ = is_page_locked(plan_.spec.host_memory.kind);
}

// The cure "register": the worker's own pageable buffer becomes page-locked once, before the
// timed copies, and every copy after takes the driver's direct path. What that costs is
// measured here and reported apart (RegisterCosts), never inside a copy.
void CudaTransfer::register_for_path() {
    if (host_pinned_) return;
    for (Endpoint* e : {&src_, &dst_}) {
        if (e->on_device || e->host.size() == 0) continue;
        const int64_t t0 = now_ns();
        XFER_CUDA(plan_.device, plan_.worker,
                  cudaHostRegister(e->host.data(), e->host.size(), cudaHostRegisterPortable));
        const int64_t took = now_ns() - t0;
        path_registered_.push_back(e->host.data());
        if (plan_.register_costs) plan_.register_costs->add(took, e->host.size());
    }
    host_pinned_ = true;
}

void CudaTransfer::upload_pattern(const Endpoint& e) {
    const uint64_t bytes = plan_.spec.bytes;
    std::vector<std::byte> chunk(std::min(bytes, kStagingBytes));
    bind(e.device);
    for (uint64_t off = 0; off < bytes; off += chunk.size()) {
        const uint64_t len = std::min<uint64_t>(chunk.size(), bytes - off);
        fill_pattern_at(chunk.data(), len, plan_.worker, off);
        XFER_CUDA(e.device, plan_.worker,
                  cudaMemcpy(static_cast<std::byte*>(e.device_ptr) + off, chunk.data(), len,
                             cudaMemcpyHostToDevice));
    }
    // The chunk is reused at once: a pageable cudaMemcpy may still be moving the last one.
    XFER_CUDA(e.device, plan_.worker, cudaDeviceSynchronize());
}

void CudaTransfer::attach_thread() {
    const TransferSpec& t = plan_.spec;
    // The worker's thread binds to its device here: every later call of this thread (the
    // copies) runs in that device's primary context, or in the worker's own context.
    if (context_) {
        context_->make_current();
    } else {
        XFER_CUDA(plan_.device, plan_.worker, cudaSetDevice(plan_.device));
    }
    if (attached_) return;
    if (t.api == CopyApi::async) {
        switch (t.stream) {
            case StreamKind::legacy:
                stream_ = cudaStreamLegacy;
                break;
            case StreamKind::per_thread:
                stream_ = cudaStreamPerThread;
                break;
            case StreamKind::non_blocking:
                XFER_CUDA(plan_.device, plan_.worker,
                          cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
                own_stream_ = true;
                break;
        }
        if (plan_.events) {
            XFER_CUDA(plan_.device, plan_.worker, cudaEventCreate(&ev_start_));
            XFER_CUDA(plan_.device, plan_.worker, cudaEventCreate(&ev_end_));
        }
    }
    if (t.first_touch == FirstTouch::worker) {
        const bool has_host = !src_.on_device || !dst_.on_device;
        if (has_host && !host_touched_) touch_host_buffers();  // this thread faults them in
        pin_host_buffers();
    }
    attached_ = true;
}

CopyOutcome CudaTransfer::copy() {
    // The timed path: CUDA calls, their error checks (which build a message only on failure),
    // and for event timing one clock read. No allocation, no logging, no CUPTI flushing.
    if (plan_.staging) return staged_copy();
    CopyOutcome out;
    const uint64_t bytes = plan_.spec.bytes;
    void* dst = dst_.ptr();
    const void* src = src_.ptr();
    if (plan_.cupti) CuptiTracer::reset_last_correlation();
    cudaError_t err;
    if (plan_.spec.api == CopyApi::sync) {
        // api = "sync" is the plain cudaMemcpy (cudaMemcpyPeer for p2p) whatever `stream` says:
        // it runs on the legacy default stream. `stream` applies to api = "async".
        err = p2p_ ? cudaMemcpyPeer(dst, dst_.device, src, src_.device, bytes)
                   : cudaMemcpy(dst, src, bytes, kind_);
        if (err != cudaSuccess) fail(err, p2p_ ? "cudaMemcpyPeer" : "cudaMemcpy");
        if (sync_after_memcpy_) {
            err = cudaStreamSynchronize(cudaStreamLegacy);
            if (err != cudaSuccess) fail(err, "cudaStreamSynchronize");
        }
    } else {
        if (ev_start_) {
            err = cudaEventRecord(ev_start_, stream_);
            if (err != cudaSuccess) fail(err, "cudaEventRecord");
        }
        err = p2p_ ? cudaMemcpyPeerAsync(dst, dst_.device, src, src_.device, bytes, stream_)
                   : cudaMemcpyAsync(dst, src, bytes, kind_, stream_);
        if (err != cudaSuccess) fail(err, p2p_ ? "cudaMemcpyPeerAsync" : "cudaMemcpyAsync");
        if (ev_end_) {
            err = cudaEventRecord(ev_end_, stream_);
            if (err != cudaSuccess) fail(err, "cudaEventRecord");
        }
        err = cudaStreamSynchronize(stream_);
        if (err != cudaSuccess) fail(err, "cudaStreamSynchronize");
        if (ev_start_) {
            // Events give the copy's duration on the device (resolution about 0.5 us), not its
            // position on the host clock. The end is anchored at the moment the host saw the
            // stream finish, which is at or after the true end (by the synchronize wake-up),
            // and the start is that minus the duration. So device_end_ns is an upper bound and
            // device_end_ns - device_start_ns is exact; pre_device_ns() includes the wake-up.
            const int64_t anchor = now_ns();
            float ms = 0;
            err = cudaEventElapsedTime(&ms, ev_start_, ev_end_);
            if (err != cudaSuccess) fail(err, "cudaEventElapsedTime");
            out.device_end_ns = anchor;
            out.device_start_ns = anchor - std::llround(double(ms) * 1e6);
            out.device_timing = DeviceTiming::events;
        }
    }
    if (plan_.cupti) out.correlation = CuptiTracer::last_correlation();
    return out;
}

uint32_t CudaTransfer::begin_timed_block() {
    if (!plan_.cupti) return 0;
    const uint32_t tag = next_timed_block_tag();
    CuptiTracer::begin_capture(tag);
    return tag;
}

TimedBlockCalls CudaTransfer::end_timed_block() {
    if (!plan_.cupti) return {};
    const CapturedCalls c = CuptiTracer::end_capture();
    return {c.calls, c.gil_held};
}

// One request to the device's staging engine; the record is joined to its chunks' CUPTI records
// through the tag (CudaBackend::end_run aliases every chunk's id to it).
CopyOutcome CudaTransfer::staged_copy() {
    CopyOutcome out;
    const uint32_t tag = next_staged_tag();
    correlation::set_staged_tag(tag);  // the engine's probe reads it as the copy arrives
    try {
        if (plan_.spec.direction == Direction::h2d)
            plan_.staging->to_device(dst_.device_ptr, src_.host.data(), plan_.spec.bytes,
                                     host_pinned_);
        else
            plan_.staging->from_device(dst_.host.data(), src_.device_ptr, plan_.spec.bytes,
                                       host_pinned_);
    } catch (const std::runtime_error& e) {
        correlation::set_staged_tag(0);
        throw std::runtime_error(fmt::format("worker {}: {}", plan_.worker, e.what()));
    }
    correlation::set_staged_tag(0);
    if (plan_.cupti) out.correlation = tag;
    return out;
}

void CudaTransfer::poison_destination() {
    const uint64_t bytes = plan_.spec.bytes;
    if (bytes == 0) return;
    if (dst_.on_device) {
        ContextScope scope(context_.get());
        bind(dst_.device);
        XFER_CUDA(dst_.device, plan_.worker, cudaMemset(dst_.device_ptr, kPoison, bytes));
        XFER_CUDA(dst_.device, plan_.worker, cudaDeviceSynchronize());
        return;
    }
    // A host destination is written only where that cannot change which thread first touches
    // it: it was already touched (first_touch = "main", or the worker attached), or it is
    // page-locked (placed when allocated or registered). Otherwise it is left alone: with
    // first_touch = "worker" attach_thread() writes the poison from the worker's thread; with
    // "none" it holds the allocator's zeros, which the pattern (no zero byte) never matches.
    if (host_touched_ || host_pinned_) std::memset(dst_.host.data(), kPoison, bytes);
}

int64_t CudaTransfer::verify() {
    const uint64_t bytes = plan_.spec.bytes;
    if (bytes == 0) return -1;
    // What the destination must hold: the pattern when the source was filled with it; else
    // (first_touch = "none" leaves a host source unwritten) the source's own bytes.
    const bool vs_pattern = source_patterned_;
    if (!vs_pattern && src_.on_device)
        throw std::logic_error("verify: device source without a pattern (verify was off?)");
    const std::byte* host_src = src_.on_device ? nullptr : src_.host.data();
    auto first_difference = [](const std::byte* a, const std::byte* b, uint64_t len) -> int64_t {
        if (std::memcmp(a, b, len) == 0) return -1;
        for (uint64_t i = 0; i < len; ++i)
            if (a[i] != b[i]) return int64_t(i);
        return -1;
    };
    if (!dst_.on_device) {
        return vs_pattern ? find_pattern_mismatch(dst_.host.data(), bytes, plan_.worker)
                          : first_difference(dst_.host.data(), host_src, bytes);
    }
    // Device destination: read it back chunk by chunk (untimed, main thread).
    std::vector<std::byte> chunk(std::min(bytes, kStagingBytes));
    ContextScope scope(context_.get());
    bind(dst_.device);
    XFER_CUDA(dst_.device, plan_.worker, cudaDeviceSynchronize());
    for (uint64_t off = 0; off < bytes; off += chunk.size()) {
        const uint64_t len = std::min<uint64_t>(chunk.size(), bytes - off);
        XFER_CUDA(dst_.device, plan_.worker,
                  cudaMemcpy(chunk.data(), static_cast<const std::byte*>(dst_.device_ptr) + off,
                             len, cudaMemcpyDeviceToHost));
        int64_t at = vs_pattern ? find_pattern_mismatch_at(chunk.data(), len, plan_.worker, off)
                                : first_difference(chunk.data(), host_src + off, len);
        if (at >= 0) return int64_t(off) + at;
    }
    return -1;
}

void CudaTransfer::corrupt_destination_for_test(uint64_t offset) {
    if (offset >= plan_.spec.bytes)
        throw std::out_of_range("corrupt_destination_for_test: offset " + std::to_string(offset) +
                                " is past the " + std::to_string(plan_.spec.bytes) +
                                "-byte destination");
    if (!dst_.on_device) {
        dst_.host.data()[offset] = ~dst_.host.data()[offset];
        return;
    }
    auto* p = static_cast<std::byte*>(dst_.device_ptr) + offset;
    std::byte b{};
    ContextScope scope(context_.get());
    bind(dst_.device);
    XFER_CUDA(dst_.device, plan_.worker, cudaMemcpy(&b, p, 1, cudaMemcpyDeviceToHost));
    b = ~b;
    XFER_CUDA(dst_.device, plan_.worker, cudaMemcpy(p, &b, 1, cudaMemcpyHostToDevice));
    XFER_CUDA(dst_.device, plan_.worker, cudaDeviceSynchronize());
}

}  // namespace

std::unique_ptr<WorkerTransfer> make_cuda_transfer(const TransferPlan& plan) {
    return std::make_unique<CudaTransfer>(plan);
}

}  // namespace xfer::cuda
