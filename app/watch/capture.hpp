#pragma once
// What the injected library does with each event CUPTI hands it, without CUPTI: the CUPTI
// adapter (watch/inject/cupti_injection.cpp) turns CUPTI's callbacks and activity records into
// these calls, and the tests' fake producer makes the same calls in the same order, so that
// everything past CUPTI's own structs is tested without a GPU.
//
// Per API call, on the calling thread: api_enter at its entry, api_exit at its return, which
// writes one XW_API record (nested calls, a runtime call's own driver calls, name the
// outermost one). A thread's first call writes its XW_THREAD (name, scheduling, affinity) and
// a function's first call its XW_NAME. Activity records arrive later, on whichever thread
// CUPTI delivers them, and are written as they come.
#include <cstdint>
#include <string>

#include "watch/watch_records.h"

namespace xfer::watch {

struct ApiCall {
    xw_domain domain = XW_RUNTIME;
    uint32_t cbid = 0;
    const char* name = nullptr;  // CUPTI's functionName
    uint32_t correlation = 0;
    bool memset = false;
    uint8_t memcpy_kind = 255;       // cudaMemcpyKind where the call names one
    const void* host_src = nullptr;  // the host side the call names, where it is known
    const void* host_dst = nullptr;
    uint64_t bytes = 0;  // as asked, where the call's parameters were read
};

// Copies from this size on get their host pages' NUMA nodes sampled (XW_ENV_SAMPLE_BYTES).
constexpr uint64_t kDefaultSampleBytes = uint64_t(1) << 20;

class Capture {
  public:
    static Capture& instance();

    // Opens this process's record file in $XFERLAB_WATCH_DIR. "" or why not (then every other
    // call does nothing).
    std::string start_from_environment();
    // The same for a folder and sampling threshold given directly (tests).
    std::string start(const std::string& dir, uint64_t sample_bytes);
    bool started() const { return started_; }

    void api_enter(const ApiCall& call);
    void api_exit(const ApiCall& call, int result);

    void memcpy_activity(const xw_memcpy& a);
    void memset_activity(const xw_memset& a);
    void device(const xw_device& d);
    void clock(bool timestamp_callback, int64_t offset_ns);
    void note(const std::string& text);  // cut to 55 bytes
    // The exit handler: the counts of what was lost; `end_ns` is set here.
    void end(xw_end e);

  private:
    Capture() = default;
    void announce_thread(int tid);
    void announce_name(const ApiCall& call);
    void sample_pages(const ApiCall& call, const void* host, int tid);

    bool started_ = false;
    uint64_t sample_bytes_ = kDefaultSampleBytes;
};

// The NUMA node of up to `max_pages` pages spread evenly over [ptr, ptr + bytes), as
// move_pages(2) reports them for this process: a node, or -errno (-ENOENT: not present yet,
// -EFAULT: not host memory of this process). Returns how many were sampled (0 where the call
// failed: a kernel without NUMA support).
int sample_host_nodes(const void* ptr, uint64_t bytes, int8_t* nodes, int max_pages);

// The node most of `n` sampled pages were on (-1: none present), and how many were there.
int majority_node(const int8_t* nodes, int n, int* on_node = nullptr);

// The kernel thread id of the caller.
int current_tid();

}  // namespace xfer::watch
