#pragma once
// /proc/meminfo, read in one place: the preflight's memory figures and the host description.
#include <cstdint>

namespace xfer {

// MemTotal in bytes (0 when unreadable).
uint64_t total_host_memory();
// Bytes the system can still give without swapping (MemAvailable; free pages on kernels before
// 3.14, which lack it).
uint64_t available_host_memory();

}  // namespace xfer
