#pragma once
// What a worker thread actually got, read from inside the thread (never what was asked for):
// system/thread_probe.hpp reads it.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace xfer {

struct ThreadInfo {
    std::string launcher;   // host | openmp | python | host+gil | process | mpi | main
    int worker = -1;        // -1: not a worker (e.g. the main thread)
    int pid = 0;
    int tid = 0;            // kernel thread id (gettid)
    std::string name;       // pthread name (comm)
    std::string hostname;
    uint64_t stack_size = 0;   // pthread_getattr_np
    uint64_t guard_size = 0;
    std::vector<int> blocked_signals;  // signal numbers blocked in the thread's mask
    std::vector<int> cpus;             // CPU affinity set
    std::string policy;                // other | batch | idle | fifo | rr
    int priority = 0;                  // sched priority (fifo/rr) ...
    int nice = 0;                      // ... or nice value (other/batch)
    int numa_node = -1;                // NUMA node of the CPU the thread ran on at capture
    bool python_thread = false;        // created by the Python interpreter (threading.Thread)
    std::optional<bool> gil_held;      // GIL state at capture, when an interpreter exists
};

// Fields that differ between two ThreadInfos, ignoring identity (tid, name, worker, cpu-at-capture).
std::vector<std::string> thread_info_differences(const ThreadInfo& a, const ThreadInfo& b);

}  // namespace xfer
