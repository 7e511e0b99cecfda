#pragma once
// One record per copy: what the identical copy routine measured. Every launcher produces these
// through the same code (launch/worker.cpp), so records from different launchers compare.
#include <cstdint>
#include <string>

#include "results/gap_probe.hpp"

namespace xfer {

// Where a record's device-side timestamps came from.
enum class DeviceTiming : uint8_t { none, events, cupti };
const char* to_string(DeviceTiming t);

struct Record {
    int run = 0;         // index of the run in the plan
    int worker = 0;      // worker index inside the run
    int repetition = 0;  // 0-based among the measured copies; warm-up copies count from -warmup
    bool warmup = false; // warm-up copies are kept in results but excluded from statistics
    int device = -1;     // -1: host backend
    uint64_t bytes = 0;
    // Host clock (CLOCK_MONOTONIC ns) taken inside the copy routine, around the backend call.
    int64_t host_start_ns = 0;
    int64_t host_end_ns = 0;
    // Device-side start/end of the transfer, converted to the host clock; -1 when unknown.
    int64_t device_start_ns = -1;
    int64_t device_end_ns = -1;
    DeviceTiming device_timing = DeviceTiming::none;
    uint32_t correlation = 0;  // CUPTI correlation id (0: none)
    uint32_t context = 0;      // CUDA context id (CUPTI), 0: none
    uint32_t stream = 0;       // CUDA stream id (CUPTI), 0: none
    int tid = 0;               // kernel thread id of the calling thread
    int cpu = -1;              // CPU the call started on (sched_getcpu)
    int pid = 0;               // process of the calling thread (process/mpi launchers differ)
    // Time spent in threads.between just before this call, after the worker's previous copy
    // returned (what sleep: or spin: actually took); 0 when nothing was applied.
    int64_t between_ns = 0;
    // A payload's `with w.timed(...)` block rather than xferlab's routine: the 1-based index
    // of its label in RunResult::copy_sources (0: xferlab's own copy routine).
    uint16_t source = 0;
    // Timed blocks only: the memcpy API calls (runtime or driver) the block made, as the
    // device tracer saw them on the worker's thread (-1: no tracer watched the block, e.g. the
    // host backend), and how many of those calls were made with the GIL held.
    int16_t device_calls = -1;
    int16_t gil_held_calls = 0;
    bool failed = false;  // the block raised: the record is kept, marked, and not measured
    // A watched program's copy (`xferlab watch`): the copy's kind and its source and
    // destination memory kinds as CUPTI gave them (results/copy_kinds.hpp: CUpti_ActivityMemcpyKind
    // and CUpti_ActivityMemoryKind codes; 0 for xferlab's own copies, whose run settings say
    // them). Any copy: the NUMA node most of its host buffer's sampled pages were on (a watched
    // copy's at its call, xferlab's own worker's once attached; -1: none sampled).
    uint8_t copy_kind = 0;
    uint8_t src_kind = 0;
    uint8_t dst_kind = 0;
    int16_t host_node = -1;
    // The gap before this call taken apart ([threads] gap_stages / gap_counters); empty unless
    // asked for.
    GapProbe gap;

    bool foreign() const { return source != 0; }
    bool watched() const { return copy_kind != 0; }
    int64_t host_duration_ns() const { return host_end_ns - host_start_ns; }
    bool has_device_time() const { return device_start_ns >= 0 && device_end_ns >= device_start_ns; }
    int64_t device_duration_ns() const { return device_end_ns - device_start_ns; }
    // Time the call spent before the device started moving bytes (staging, locks, launch).
    int64_t pre_device_ns() const { return has_device_time() ? device_start_ns - host_start_ns : -1; }
};

}  // namespace xfer
