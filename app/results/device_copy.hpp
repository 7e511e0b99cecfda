#pragma once
// One device copy the tracer saw inside a payload's `w.timed()` block. A block may issue
// several (a framework splitting a copy, a staging copy plus a kernel's copy): each is listed,
// and the block's record carries the span from the first start to the last end.
#include <cstdint>
#include <string>

namespace xfer {

struct DeviceCopy {
    uint32_t correlation = 0;  // the block record's correlation id (Record::correlation)
    int worker = 0;
    int repetition = 0;
    int64_t start_ns = 0;  // device start and end on the host clock (CLOCK_MONOTONIC)
    int64_t end_ns = 0;
    uint64_t bytes = 0;
    int device = -1;
    uint32_t stream = 0;
    std::string kind;  // "HtoD", "DtoH", "DtoD", "HtoH", "PtoP"
    std::string src;   // memory kinds as CUPTI names them: "pageable", "pinned", "device", ...
    std::string dst;
};

}  // namespace xfer
