#pragma once
// A watched program's copies (launcher "watched", `xferlab watch`), beyond what every run gets:
// by kind of copy and memory and by size class; the time its calls spent in pageable copies
// and waiting while another transfer was on the device; each thread's share of both; the NUMA
// node of the sampled host pages against each device's nearest node; and what xferlab timed on
// each device after the program ended (a page-locked reference, xferlab.copy with --calibrate),
// only where it was timed.
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "results/run_result.hpp"

namespace xfer {

// The labels of the runs `xferlab watch` times after the program (run/watch/watch_reference.cpp
// writes them, the section below finds them by them): "<prefix> h2d device 0".
inline constexpr const char* kReferenceLabel = "reference pinned";
inline constexpr const char* kCalibrateLabel = "xferlab.copy";

struct WatchedGroup {
    std::string kind;        // "HtoD pageable -> device"
    std::string size_class;  // "1 MiB - 16 MiB"
    size_t copies = 0;
    uint64_t bytes = 0;
    int64_t call_ns = 0;        // summed host calls
    int64_t device_ns = 0;      // summed device transfers
    double p50_device_Bps = 0;  // per copy, device-timed
};

struct WatchedThread {
    int worker = 0;
    int pid = 0;
    int tid = 0;
    std::string name;  // the OS thread's name at its first copy ("" where it had none of its own)
    size_t copies = 0;
    uint64_t bytes = 0;
    int64_t call_ns = 0;
    int64_t pageable_ns = 0;   // its calls that copied pageable memory
    int64_t wait_ns = 0;       // call start -> device start, summed
    int64_t wait_busy_ns = 0;  // ... while another transfer was on the same device
};

// A run xferlab timed after the program: its run number, label, what it is and its aggregate.
struct WatchedReference {
    int run = 0;
    std::string label;
    bool calibrate = false;  // xferlab.copy (staged) rather than the page-locked reference
    int device = -1;
    std::string direction;  // "h2d", "d2h"
    uint64_t bytes = 0;
    int threads = 1;
    double aggregate_Bps = 0;
    // The program's copies on the same device and direction: per-copy p50 (device-timed) and
    // bytes over the device's busy window (first device start .. last device end).
    double program_p50_Bps = 0;
    double program_window_Bps = 0;
    size_t program_copies = 0;
};

struct WatchedStats {
    std::vector<WatchedGroup> groups;
    std::vector<WatchedThread> threads;
    std::vector<WatchedReference> references;
    int64_t call_ns = 0;       // every recorded copy call, summed
    int64_t pageable_ns = 0;   // ... those that copied pageable host memory
    int64_t wait_ns = 0;       // pre-device waits, summed
    int64_t wait_busy_ns = 0;  // ... while another transfer was on the device
};

// The run's watched figures (records and threads only); watched_references adds the runs
// xferlab timed after it. Where its pageable copies' pages lived: RunAnalysis::host_nodes.
WatchedStats watched_stats(const RunResult& run);
// The reference runs of `results` (by their labels, run/watch/watch_reference.hpp), each against
// the watched run's copies on the same device and direction. `aggregates` is each run's aggregate
// in Results order.
std::vector<WatchedReference> watched_references(const Results& results, size_t watched,
                                                 const std::vector<double>& aggregates);

// The size class of a copy: "< 64 KiB", "64 KiB - 1 MiB", "1 MiB - 16 MiB", "16 MiB - 256 MiB",
// ">= 256 MiB".
std::string size_class(uint64_t bytes);

void to_json(nlohmann::json& j, const WatchedStats& s);

}  // namespace xfer
