#pragma once
// Threads xferlab could not stop that outlive their run: a payload's thread still running past
// its timeout (CPython cannot kill a thread), kept alive until the process ends. They share the
// machine with every later run: a spinning one took a core from the host runs after it (35.6
// and 31.0 GB/s became 17.9 and 19.5). Each is remembered here by its kernel thread id, so that
// a later run can tell whether one was alive while it measured, and how much CPU it took then.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace xfer {

// A thread left running, as the run that left it described it.
struct StrayThread {
    int tid = 0;            // kernel thread id
    std::string name;       // e.g. the Python thread's name
    int left_by_run = -1;   // the run whose stop it outlived
};

// Remembers `thread` for the rest of the process. Any thread may call it.
void remember_stray_thread(const StrayThread& thread);

// A remembered thread alive now, with the CPU time (user and system) it has used so far.
struct StrayThreadNow {
    StrayThread thread;
    int64_t cpu_ns = 0;
};
std::vector<StrayThreadNow> live_stray_threads();

// A remembered thread that was alive while a run measured (results.json's "stray_threads"):
// the run's figures may be skewed by it, and trial verdicts count the run as suspect.
struct StrayThreadSeen {
    int tid = 0;
    std::string name;
    int left_by_run = -1;
    int64_t cpu_ns = 0;  // CPU it used between the run's start and end (-1: unknown)
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(StrayThreadSeen, tid, name, left_by_run, cpu_ns)

// The threads alive at the run's start (`before`) or end (`after`), each with the CPU it used
// between the two readings (-1 for one seen in only one of them).
std::vector<StrayThreadSeen> strays_during(const std::vector<StrayThreadNow>& before,
                                           const std::vector<StrayThreadNow>& after);

// "thread 'spin' (tid 4711, left running by run 1; 1.92 s of CPU during this run)" for each,
// joined: the note of a run measured beside them.
std::string describe_strays(const std::vector<StrayThreadSeen>& strays);

}  // namespace xfer
