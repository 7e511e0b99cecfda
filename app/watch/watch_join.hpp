#pragma once
// One process's records joined: each outermost memcpy or memset API call with the device
// activity it caused, by correlation id. CUPTI gives an activity record the id of the driver
// call that issued it (and, where it has one, the runtime call's); the library gave every
// nested call the id of its outermost call, so each activity lands on the call the program
// made, whatever layers (runtime, driver) the call went through.
#include <cstdint>
#include <string>
#include <vector>

#include "watch/record_reader.hpp"

namespace xfer::watch {

struct JoinedCall {
    int pid = 0;
    int tid = 0;
    uint32_t correlation = 0;  // the outermost call's
    std::string function;      // its name ("cudaMemcpyAsync")
    bool memset = false;
    int cpu = -1;
    int result = 0;  // its return code: not 0 = the call failed
    int64_t host_start_ns = 0;
    int64_t host_end_ns = 0;
    // Its device activity, on CLOCK_MONOTONIC: first start to last end, bytes summed.
    int parts = 0;  // activity records (0: none arrived)
    int64_t device_start_ns = -1;
    int64_t device_end_ns = -1;
    uint64_t bytes = 0;
    int device = -1;
    uint32_t context = 0;
    uint32_t stream = 0;
    uint8_t copy_kind = 0;  // of its first activity record (CUpti_ActivityMemcpyKind)
    uint8_t src_kind = 0;
    uint8_t dst_kind = 0;
    // The NUMA node most of its sampled host pages were on (-1: none sampled, or none present),
    // and how many pages were sampled / on that node.
    int host_node = -1;
    int sampled_pages = 0;
    int pages_on_node = 0;
};

struct JoinedProcess {
    int pid = 0;
    std::vector<JoinedCall> calls;  // outermost calls with device activity, by host start
    // Outermost memcpy calls without any activity record: failed (their return code said so)
    // or never delivered (the process ended before CUPTI handed the record over, or CUPTI
    // dropped it).
    uint64_t failed_calls = 0;
    uint64_t calls_without_activity = 0;
    // Activity records whose call is not in the file (issued before the library loaded, or
    // the call's record lost with the process).
    uint64_t activity_without_call = 0;
    std::string clock;  // how device times were put on CLOCK_MONOTONIC
};

JoinedProcess join_process(const ProcessTrace& trace);

}  // namespace xfer::watch
