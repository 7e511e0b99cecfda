#pragma once
// The common time origin of the file reporters (copies.csv, trace.json): the earliest host
// start of any record in the results, so that every run lies on one axis starting near 0.
#include <algorithm>
#include <cstdint>
#include <limits>

#include "results/run_result.hpp"

namespace xfer {

inline int64_t first_record_ns(const Results& results) {
    int64_t first = std::numeric_limits<int64_t>::max();
    for (const auto& run : results.runs) {
        for (const auto& r : run.records) first = std::min(first, r.host_start_ns);
    }
    return first == std::numeric_limits<int64_t>::max() ? 0 : first;
}

}  // namespace xfer
