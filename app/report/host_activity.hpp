#pragma once
// Whether a run shared its machine (RunResult::host_activity): CPUs kept busy by processes other
// than xferlab, or time the hypervisor gave to other guests. Either can slow the copies (host
// copies and the driver's calls run on those CPUs) without anything in the records saying so.
#include <optional>
#include <string>

#include "results/run_result.hpp"

namespace xfer {

// Other processes busier than this many CPUs on average, or more steal than this fraction of
// all CPU time, are worth a line; below, a busy desktop's background.
inline constexpr double kNotableOtherCpus = 0.5;
inline constexpr double kNotableSteal = 0.01;

// The report's line for a run that shared its machine; nullopt when nothing notable was seen
// (or nothing was recorded).
std::optional<std::string> host_activity_line(const RunResult& run);

}  // namespace xfer
