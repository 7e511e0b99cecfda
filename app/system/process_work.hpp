#pragma once
// What this process's threads and child processes are doing, read from /proc: each one's kernel
// id, name, start time and CPU time so far. The plan runner reads it around every run to find
// work a payload left behind that xferlab was never told of: a thread started with
// _thread.start_new_thread (not in threading's list, so never among the threads a payload run
// names as left running) or a child process from os.fork, still copying after its run. Before
// issue 54 such work halved the later runs (6.4 and 3.7 GB/s against 14.7 to 15.7) with no note.
#include <cstdint>
#include <string>
#include <vector>

namespace xfer {

struct WorkUnit {
    int id = 0;                      // the thread's id, or the child process's pid
    bool process = false;            // a child process of this one
    std::string name;                // its comm: "python3", "xfer-host-0"
    unsigned long long started = 0;  // clock ticks after boot: tells it from a later id reuse
    int64_t cpu_ns = 0;              // CPU time so far (a child: all its threads)
};

struct WorkSnapshot {
    int64_t taken_ns = 0;  // host clock
    std::vector<WorkUnit> units;
};

// Every thread of this process but the calling one, and every child process that is not a
// zombie. CPU times in ns from schedstat where the kernel has it, else from stat's ticks.
WorkSnapshot process_work_now();

// The unit of `snapshot` that is `unit` (same id and start time), or null.
const WorkUnit* find_unit(const WorkSnapshot& snapshot, const WorkUnit& unit);

// Whether `name` is one of xferlab's own threads (they are named "xfer-..."): launchers' worker
// threads, OpenMP's pool, the staging engines' helpers.
bool xferlab_thread_name(const std::string& name);

}  // namespace xfer
