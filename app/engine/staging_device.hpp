#pragma once
// The staging engine's device side: page-locked buffers and asynchronous DMA for one device
// (engine/cuda/cuda_staging_device.hpp; engine/fake/host_staging_device.hpp for the tests). An
// interface, so that the engine's chunking and scheduling are tested without a GPU. Calls with an
// owner index come from a helper's own thread only (the owner of per-helper buffers is that
// helper; shared buffers all have owner 0).
//
// The engine also hands the device its host-side steps (a helper's copy into or out of a buffer,
// its spin) and tells it of requests and helpers, so that measurement is a decorator around the
// device (engine/measured_staging_device.hpp) rather than clock reads in the engine: a device
// runs the steps as they are and ignores the news, and an engine made without a probe has no
// decorator, so its copy path reads no clock and tests no flag.
#include <cstddef>
#include <cstdint>

namespace xfer {

// A piece of host work the engine hands its device to run once, on the calling thread: a view of
// a callable that outlives the call (no allocation, unlike std::function).
class HostStep {
  public:
    template <class F>
    explicit HostStep(F& f)
        : object_(&f), call_([](void* object) { (*static_cast<F*>(object))(); }) {}
    void operator()() const { call_(object_); }

  private:
    void* object_;
    void (*call_)(void*);
};

// The helper index of a host copy made on a caller's thread rather than a helper's
// (StagingConfig::caller_starts: a caller fills pieces of its copy's first buffer). The device
// calls (DMA starts and waits) are the helpers' alone.
constexpr int kCallerThread = -1;

class StagingDevice {
  public:
    virtual ~StagingDevice() = default;
    // On the helper's thread before its first chunk: bind the device. Never timed.
    virtual void attach_helper(int helper) = 0;
    // The page-locked buffer of slot `slot` of owner `owner` (staging_layout's bytes).
    virtual std::byte* buffer(int owner, int slot) = 0;
    // Starts the DMA of `len` bytes from page-locked `host_src` to `device_dst` (or from
    // `device_src` into page-locked `host_dst`), recorded against the slot; returns at once. The
    // host side is the slot's buffer, or the caller's own memory when that is page-locked.
    // `request`: the engine's number for the copy it belongs to (a probe's key; a device
    // ignores it).
    virtual void start_to_device(int owner, int slot, void* device_dst, const std::byte* host_src,
                                 uint64_t len, uint64_t request) = 0;
    virtual void start_from_device(int owner, int slot, std::byte* host_dst, const void* device_src,
                                   uint64_t len, uint64_t request) = 0;
    // Returns when the slot's last DMA has finished. Throws on a device error.
    virtual void wait(int owner, int slot) = 0;

    // A helper's copy of `bytes` into or out of a page-locked buffer (kCallerThread: a caller's).
    virtual void host_copy(int /*helper*/, uint64_t /*bytes*/, HostStep copy) { copy(); }
    // A helper's spin while it waits for news of another helper's DMA or piece.
    virtual void spin(int /*helper*/, HostStep spin) { spin(); }
    // The helper took work after being idle (`busy`), or went idle.
    virtual void helper_busy(int /*helper*/, bool /*busy*/) {}
    // On the caller's thread: copy `request` arrived, and is about to return to its caller
    // (`failed`: with an error).
    virtual void request_started(uint64_t /*request*/) {}
    virtual void request_finished(uint64_t /*request*/, bool /*failed*/) {}
};

}  // namespace xfer
