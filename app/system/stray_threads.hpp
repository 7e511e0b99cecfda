#pragma once
// Threads xferlab could not stop that outlive their run: a payload's thread still running past
// its timeout (CPython cannot kill a thread), kept alive until the process ends. They share the
// machine with every later run: a spinning one took a core from the host runs after it (35.6
// and 31.0 GB/s became 17.9 and 19.5). Each is remembered here by its kernel thread id, so that
// a later run can tell whether one was alive while it measured, and how much CPU it took then.
// Work nobody names is found too (issue 54, item 10): a thread a payload started with
// _thread.start_new_thread, or a child process it forked, that outlived its run and kept a CPU
// busy between that run and the next (system/process_work.hpp); a later run counts it where it
// took a share of the CPU while the run measured.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "system/process_work.hpp"

namespace xfer {

// A thread left running, as the run that left it described it.
struct StrayThread {
    int tid = 0;            // kernel thread id, or a child process's pid
    std::string name;       // e.g. the Python thread's name
    int left_by_run = -1;   // the run whose stop it outlived
    bool process = false;   // a child process (os.fork), not a thread of this one
    // Found busy in the process's lists, not named by the run that left it: counted by a later
    // run only where it took a share of the CPU meanwhile (an idle pool is no stray work).
    bool seen_only = false;
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
    int64_t cpu_ns = 0;    // CPU it used between the run's start and end (-1: unknown)
    bool process = false;  // a child process (tid is its pid); files before issue 54: false
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(StrayThreadSeen, tid, name, left_by_run, cpu_ns,
                                                process)

// The threads alive at the run's start (`before`) or end (`after`), each with the CPU it used
// between the two readings (-1 for one seen in only one of them). One seen only counts where
// it took at least 5% of the run's `run_ns` (and 20 ms) of CPU.
std::vector<StrayThreadSeen> strays_during(const std::vector<StrayThreadNow>& before,
                                           const std::vector<StrayThreadNow>& after,
                                           int64_t run_ns);

// Work run `run` left: the threads and child processes in `at_end` that were not in
// `at_start`, but xferlab's own threads and those remembered already.
std::vector<WorkUnit> work_left(const WorkSnapshot& at_start, const WorkSnapshot& at_end);

// Work runs left that nobody named (work_left), watched from run to run until it is found busy
// in a gap between two runs, when nothing of xferlab's but the plan's own thread works (then it
// is remembered as stray work, seen_only), or until it ends. Watched over several gaps: on a
// loaded machine one short gap may give a spinning leftover too little CPU to tell. The first
// gap after work is left lasts at least kFirstGapNs (short_by): on one CI run a spinning
// leftover was found in neither of the two gaps a plan gave it (8.6 and 1.6 ms from one run's
// end to the next's start, as measured here on an idle machine).
class UnnamedWork {
  public:
    static constexpr int64_t kFirstGapNs = 50'000'000;
    // How much longer the gap since the last run's end should last at host time `now_ns`
    // before at_run_start reads it: the rest of kFirstGapNs where work left since the last
    // gap is watched, else 0.
    int64_t short_by(int64_t now_ns) const;
    // A run starts: what kept a tenth of a CPU busy since the last run ended is stray work.
    void at_run_start(const WorkSnapshot& now);
    // Run `run` ended: what it left is watched from here on, beside what earlier runs left.
    void at_run_end(const WorkSnapshot& at_start, const WorkSnapshot& at_end, int run);

  private:
    struct Watched {
        WorkUnit unit;  // as read at the last run's end
        int left_by = -1;
        bool gap_seen = false;  // judged over a gap at least once
    };
    std::vector<Watched> watched_;
    WorkSnapshot last_end_;
};

// "thread 'spin' (tid 4711, left running by run 1; 1.92 s of CPU during this run)" for each
// ("child process 'python3' (pid 4712, ...)"), joined: the note of a run measured beside them.
std::string describe_strays(const std::vector<StrayThreadSeen>& strays);

}  // namespace xfer
