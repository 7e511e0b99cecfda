#pragma once
// Statistics computed once from Results; every reporter reads them from here.
#include <optional>
#include <string>
#include <vector>

#include "results/run_result.hpp"

namespace xfer {

struct Distribution {
    size_t n = 0;
    double min = 0, p10 = 0, p50 = 0, p90 = 0, max = 0, mean = 0, stddev = 0;
    double cv = 0;  // stddev / mean
};
Distribution distribution(std::vector<double> values);

struct Comparison {
    int baseline_run = 0;
    double aggregate_ratio = 0;  // this / baseline
    double p50_ratio = 0;        // per-copy p50 bandwidth, this / baseline
    bool within_noise = false;   // the difference is inside the runs' own spread
    std::string verdict;         // "within noise", "1.8x slower (beyond noise)", ...
};

struct RunAnalysis {
    int run = 0;
    size_t copies = 0;                 // measured (warm-up excluded)
    double window_s = 0;               // first measured start .. last measured end
    double aggregate_Bps = 0;          // all measured bytes / window
    Distribution per_copy_Bps;         // host-timed bandwidth of each copy
    Distribution per_copy_ns;          // host-timed duration of each copy
    std::optional<Distribution> device_per_copy_Bps;  // device-timed, when records have it
    std::optional<Distribution> pre_device_ns;        // call start -> device start
    std::vector<double> per_worker_Bps;  // each worker's bytes / the run's window
    double fairness = 1;                 // Jain's index over per-worker bytes/s
    double host_concurrency = 0;         // mean copies in flight (host intervals) over the window
    std::optional<double> device_concurrency;  // same with device intervals, per device averaged
    std::optional<double> scaling;       // aggregate / aggregate of the 1-thread run
    std::optional<int> scaling_reference;
    std::optional<Comparison> vs_baseline;
    std::vector<std::string> thread_differences;  // ThreadInfo vs the baseline's workers
    std::vector<std::string> explanations;        // plain-language findings
};

struct Analysis {
    std::vector<RunAnalysis> runs;     // same order as Results::runs
    std::vector<std::string> summary;  // findings across runs
};

Analysis analyze(const Results& results);

}  // namespace xfer
