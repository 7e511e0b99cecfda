#pragma once
// ThreadInfo read from inside the calling thread: what it actually got (stack, guard, signal
// mask, affinity, scheduling), never what a launcher asked for.
#include <string>

#include "system/thread_info.hpp"

namespace xfer {

// Reads the calling thread's attributes. `launcher` and `worker` label it.
ThreadInfo capture_thread_info(const std::string& launcher, int worker);

// The NUMA node of `cpu` (from sysfs), -1 when unknown.
int numa_node_of_cpu(int cpu);

}  // namespace xfer
