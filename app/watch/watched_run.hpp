#pragma once
// A watched program as one run of launcher "watched": every process's record file joined
// (watch/watch_join.hpp), each OS thread that issued copies a worker (in the order of their
// first copies), each outermost copy call a Record (host times: the call as the program made
// it; device times: its copies on the device), and what could not be joined said in the run's
// notes. The reports read it like any other run.
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "results/run_result.hpp"
#include "watch/record_reader.hpp"

namespace xfer::watch {

inline constexpr const char* kWatchedLauncher = "watched";
inline constexpr const char* kWatchedLabel = "watched";

struct WatchedProgram {
    std::vector<std::string> argv;  // CMD ARGS as run
    int64_t start_ns = 0;           // CLOCK_MONOTONIC: started, and reaped
    int64_t end_ns = 0;
    std::string ended;         // "exited with status 0", "was killed by SIGKILL"
    bool interrupted = false;  // a stop (SIGINT/SIGTERM) was passed on to it
    uint64_t min_bytes = 0;    // copies below this are counted, not recorded
};

// Where the program copied, for the reference copies xferlab times afterwards: per device and
// direction ("h2d", "d2h"), the median bytes of its copies and how many workers made them.
struct DeviceUse {
    int device = -1;
    std::string direction;
    uint64_t median_bytes = 0;
    int workers = 0;
    size_t copies = 0;
};

struct WatchedRun {
    RunResult run;
    std::vector<DeviceUse> uses;
    // The devices the program's processes saw (XW_DEVICE): {"devices": [{index, name,
    // pci_bus_id, numa_node}], ...}; results.json's "devices" keeps it under "watched".
    nlohmann::json devices = nlohmann::json::object();
};

WatchedRun watched_run(const std::vector<ProcessTrace>& traces, const WatchedProgram& program);

}  // namespace xfer::watch
