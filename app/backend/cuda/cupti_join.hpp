#pragma once
// Joining CUPTI memcpy records to xferlab's per-copy records by correlation id, and putting the
// device timestamps on the host clock. Pure C++ (no CUDA header).
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "backend/cuda/cupti_tracer.hpp"
#include "results/device_copy.hpp"
#include "results/record.hpp"

namespace xfer::cuda {

struct JoinReport {
    int eligible = 0;        // records of this process that carry a correlation id
    int joined = 0;          // ... that found their activity record
    int missing = 0;         // ... that did not (dropped, or the call made no device copy)
    int bytes_mismatch = 0;  // joined, but the activity's byte count differs from the record's
    int outside_host = 0;    // joined, but the device interval is not inside the host interval
    int without_id = 0;      // records of this process without a correlation id
    int64_t offset_ns = 0;   // the CUPTI -> CLOCK_MONOTONIC offset used
    std::string clock;       // how CUPTI's timestamps were put on CLOCK_MONOTONIC
};

// Fills device_start_ns/device_end_ns (CLOCK_MONOTONIC), context, stream and device_timing =
// cupti of every record of process `pid` whose correlation id has an activity record. Several
// activity records with one id (a copy split by the driver) count as one: first start to last
// end, bytes summed. `tolerance_ns` bounds how far outside [host_start, host_end] a device
// interval may lie before it counts as outside_host (clock conversion error).
JoinReport join_device_times(std::vector<Record>& records, const TraceResult& trace, int pid,
                             int64_t tolerance_ns = 1'000'000);

// Gives every activity record whose id (runtimeCorrelationId or, with some CUDA versions,
// correlationId: the id a runtime callback hands out) is a key of `tag_of` the tag it maps to,
// as its runtime id (its driver id cleared), so that join_device_times and join_timed_blocks
// find it under the record's tag: a staged copy's chunks, a timed block's calls. Returns how
// many records were renamed.
uint64_t apply_correlation_aliases(TraceResult& trace,
                                   const std::unordered_map<uint32_t, uint32_t>& tag_of);

// Payload w.timed() blocks (Record::foreign) carry their block's tag as correlation id: every
// activity record aliased to it is one of the block's device copies. Fills each block's device
// interval (first start to last end, host clock with `offset_ns`: JoinReport::offset_ns) and
// lists the copies.
struct TimedBlockJoin {
    int blocks = 0;         // timed blocks of this process
    int blocks_joined = 0;  // ... with at least one device copy
    std::vector<DeviceCopy> copies;
};
TimedBlockJoin join_timed_blocks(std::vector<Record>& records, const TraceResult& trace, int pid,
                                 int64_t offset_ns);

// The sentences the run's notes get from a join ("CUPTI: 40 of 40 copies joined ...").
std::vector<std::string> join_notes(const JoinReport& report, const TraceResult& trace);

}  // namespace xfer::cuda
