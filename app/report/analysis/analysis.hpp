#pragma once
// Statistics computed once from Results; every reporter reads them from here.
// How each number is computed: docs/reading-reports.md (kept true to report/analysis/). They are
// computed, with the explanations' findings, by analyze() (report/explain/analyze.hpp).
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "report/analysis/finding.hpp"
#include "report/analysis/host_nodes.hpp"
#include "report/analysis/staging_helpers.hpp"
#include "report/analysis/gap_stages.hpp"
#include "report/analysis/timed_blocks.hpp"
#include "report/analysis/watched.hpp"
#include "results/run_result.hpp"

namespace xfer {

struct Distribution {
    size_t n = 0;
    double min = 0, p10 = 0, p50 = 0, p90 = 0, max = 0, mean = 0, stddev = 0;
    double cv = 0;  // stddev / mean (sample stddev, n-1); 0 when mean is 0
};
// Percentiles by linear interpolation between closest ranks (report/analysis/stats.hpp).
Distribution distribution(std::vector<double> values);

struct Comparison {
    int baseline_run = 0;  // the baseline's run number (RunPosition::index), not a vector index
    double aggregate_ratio = 0;  // this / baseline
    double p50_ratio = 0;        // per-copy p50 bandwidth, this / baseline
    bool within_noise = false;   // the aggregate difference is inside the runs' own spread
    bool p50_within_noise = false;
    // Bounds on |ln ratio| under which a ratio counts as noise (stats::noise_bound); 0.05 means
    // about +-5 %.
    double aggregate_noise = 0;
    double p50_noise = 0;
    bool judged = true;   // false when a run has < 2 copies: no spread to judge noise by
    std::string verdict;  // "0.98x (inside this run's noise +-6%)", ... (ratio_verdict)
};

// One worker of a run (measured copies only).
struct WorkerStats {
    int worker = 0;
    int tid = 0;      // kernel thread of the worker's first measured copy (0: none)
    int device = -1;  // device of its first measured copy
    size_t copies = 0;
    uint64_t bytes = 0;
    double window_s = 0;  // the worker's own first start .. last end
    double Bps = 0;       // bytes / own window
    double share = 0;     // Bps / sum of all workers' Bps (1/workers when fair)
    // Bytes / the sum of its copies' transfer durations (device-side when every copy has them,
    // else the host calls): the rate it was served at while served, whatever its start.
    double service_Bps = 0;
    Distribution per_copy_Bps;
    std::optional<Distribution> device_per_copy_Bps;
    // Host-clock gap from one of its copies' return to its next call, for every gap that ends
    // in a measured copy (report/analysis/handoff.cpp); nullopt with fewer than two copies.
    std::optional<Distribution> gap_ns;
    // Mean length of its runs of consecutive copies in its device's sequence (HandoffStats);
    // 0 when it has none there. `sequence_copies`: its copies in that sequence.
    double run_length = 0;
    size_t sequence_copies = 0;
};

// One device of a run, from device-side intervals (records with device timestamps).
struct DeviceStats {
    int device = -1;
    int workers = 0;         // distinct workers that copied on it
    size_t copies = 0;       // measured copies with device timestamps
    double window_s = 0;     // first device start .. last device end on this device
    double concurrency = 0;  // mean transfers in flight over that window
    int peak = 0;            // most transfers in flight at one instant
    // The same counted over every call in flight during the run's window, warm-ups included:
    // a warm-up still on the device is a transfer like any other.
    int peak_in_flight = 0;
    double host_concurrency = 0;  // mean calls in flight of its measured copies (host clock)
    double call_p50_ns = 0;       // median host call of its measured device-timed copies
    double wait_p50_ns = 0;       // median pre-device wait of the same copies
    // The share of those copies' pre-device waits (summed) during which another transfer was on
    // this device (warm-ups included): waiting for the device rather than for something else.
    double wait_busy_fraction = 0;
};

// Who had a device after whom: the copies on one device in start order
// (report/analysis/handoff.cpp).
struct HandoffStats {
    int device = -1;             // -1: the host backend
    std::string clock;           // "device" (device-side starts) or "host" (host-side starts)
    size_t copies = 0;           // measured copies in the sequence
    size_t warmup_copies = 0;    // warm-up copies in it (those overlapping the measured window)
    int workers = 0;             // distinct workers in it
    size_t handoffs = 0;         // consecutive copies from different workers
    double handoff_rate = 0;     // handoffs / (copies + warmup_copies - 1)
    double mean_run_length = 0;  // (copies + warmup_copies) / (handoffs + 1)
    // Device clock only: distinct (process, CUDA context) pairs among the copies, and the most
    // copies in flight at once within any one of them (0 without context ids).
    int contexts = 0;
    int context_peak = 0;
    // The most workers that copied through one context: with one, a context cannot show
    // whether it serializes (a worker's own copies never overlap).
    int context_workers = 0;
    // The gaps (a return to the worker's next call) before the measured copies on this device:
    // RunAnalysis::gap_ns of this device alone (nullopt: none).
    std::optional<Distribution> gap_ns;
};

struct RunAnalysis {
    int run = 0;
    size_t copies = 0;  // measured (warm-up excluded)
    size_t warmup_copies = 0;
    uint64_t bytes = 0;   // measured bytes
    double window_s = 0;  // first measured start .. last measured end
    // Bytes moved inside the window / window. Copies that overlap the window only in part,
    // warm-up copies of other workers included, count pro rata by their transfer interval
    // (device-side when known): when copies serialize, one worker's warm-up can run inside
    // another's measured copies, and leaving it out would understate what the device moved.
    double aggregate_Bps = 0;
    double window_bytes = 0;                          // the numerator above
    size_t warmup_copies_in_window = 0;               // warm-up copies overlapping the window
    Distribution per_copy_Bps;                        // host-timed bandwidth of each copy
    Distribution per_copy_ns;                         // host-timed duration of each copy
    std::optional<Distribution> device_per_copy_Bps;  // device-timed, when records have it
    std::optional<Distribution> pre_device_ns;        // call start -> device start
    std::optional<double> timed_call_p50_ns;  // median call of the same (device-timed) copies
    // Each worker's bytes / that worker's own window (first call .. last return). With a fixed
    // repetition count every worker moves the same bytes, so dividing by the run's window would
    // make every worker equal; the own window shows who was served faster.
    std::vector<double> per_worker_Bps;
    std::vector<WorkerStats> workers;  // same order as per_worker_Bps (by worker index)
    // Jain's index over per_worker_Bps: how evenly the workers shared the bandwidth over their
    // own windows, the figures (worker GB/s, share) printed beside it. The Bandwidth table's
    // Jain (docs/reading-reports.md says why this one).
    double fairness_jain = 1;
    // Jain's index over the workers' service_Bps: whether they were served at the same rate
    // while served, whoever went first (the unequal-service finding's).
    double service_jain = 1;
    // service_jain without the copy served slowest (its transfer time, or its call without
    // device times; nullopt when that leaves a worker that had copies with none): a verdict of
    // unequal service must not hinge on one copy.
    std::optional<double> service_jain_without_slowest;
    int least_served_worker = -1;  // the worker with the lowest service_Bps (-1: no workers)
    // The share of the window during which no call was in flight (every call overlapping it,
    // warm-ups included): time the aggregate divides by while nothing moved.
    double idle_fraction = 0;
    // Every measured copy with device times ended its transfer before its call returned: the
    // call holds the transfer (xferlab's own copies; a watched program's cudaMemcpy). A
    // watched program's cudaMemcpyAsync returns before its transfer starts: its calls say
    // nothing of waiting or of when bytes moved.
    bool calls_hold_transfers = true;
    double host_concurrency = 0;  // mean copies in flight (host intervals) over the window
    int host_peak = 0;            // most copies in flight at one instant (host intervals)
    // Most calls in flight at one instant among every record whose call overlaps the window,
    // warm-ups and failed blocks included: "never two at once" has to count them all.
    int host_peak_in_flight = 0;
    // Same with device intervals, computed per device and averaged over devices (mean);
    // per-device values in `devices`.
    std::optional<double> device_concurrency;
    std::optional<int> device_peak;  // max over devices
    // Across devices: every device's measured transfers together (two devices each with one
    // transfer in flight have 2 in flight across them).
    std::optional<double> device_concurrency_all;
    std::optional<int> device_peak_all;
    std::vector<DeviceStats> devices;
    // The slowest measured call: its duration and, with device times, its pre-device wait and
    // its transfer; `transfer_ns` the device durations of all measured copies.
    double slowest_call_ns = 0;
    std::optional<double> slowest_wait_ns, slowest_transfer_ns;
    std::optional<Distribution> transfer_ns;
    std::optional<Distribution> gap_ns;  // every worker's gaps together (WorkerStats::gap_ns)
    std::vector<HandoffStats> handoffs;  // one per device the run copied on
    // Latest minus earliest first call of the workers (warm-up included): copies shorter than
    // this cannot overlap, whatever serializes them or not.
    double start_spread_ns = 0;
    std::optional<double> scaling;  // aggregate / aggregate of the 1-thread run
    std::optional<int> scaling_reference;
    std::optional<bool> scaling_within_noise;  // scaling within noise of 1.0 (no gain)
    bool is_baseline = false;
    std::optional<Comparison> vs_baseline;
    std::vector<std::string> thread_differences;  // ThreadInfo vs the baseline's workers
    std::vector<Finding> findings;                // plain-language findings, as data
    TimedBlocks timed_blocks;  // the payload's own copies (w.timed), empty for most runs
    std::vector<StagingHelperStats> staging_helpers;  // path = "staged": the helpers' work
    // A watched program's run (`xferlab watch`): its copies by kind and thread, and the runs
    // xferlab timed after it (computed across runs, by analyze()).
    std::optional<WatchedStats> watched;
    // Where the host side of its copies lived, per device, against the device's nearest node
    // (by analyze(), which reads the devices' accounts); empty where nothing was sampled.
    std::vector<HostNodes> host_nodes;
    GapStageStats gap_stages;  // [threads] gap_stages / gap_counters: the gaps taken apart
};

// A run against its baseline across trials (report/analysis/trial_analysis.cpp).
struct TrialComparison {
    int baseline_group = 0;  // position in Analysis::groups
    double ratio = 0;        // median trial aggregate / the baseline's
    // 95 % interval of the ratio: the Mann-Whitney shift interval of ln aggregate, exponentiated
    // (nullopt with fewer than 4 trials a side).
    std::optional<double> ci_low, ci_high;
    double p = 1;  // two-sided Mann-Whitney U test on the trials' aggregates
    size_t trials = 0, baseline_trials = 0;
    // faster / slower: a test that could reject did, by at least kNegligibleRatio; negligible:
    // it did, by less; no_difference: it could and did not; not_testable: these trial counts
    // cannot reach the level (3 vs 3: p >= 0.1); not_tested: one trial a side.
    enum class Finding {
        faster,
        slower,
        no_difference,
        negligible,
        not_testable,
        not_tested
    } finding = Finding::not_tested;
    // "0.80x, slower (95% CI [0.76x, 0.84x], Mann-Whitney p=0.008, 5 vs 5 trials)"
    std::string verdict;
};

// One run of the plan with all its trials (runs sharing a label).
struct TrialGroup {
    std::string label;
    std::string base_label;  // the [[run]]'s label ("" in results from before trials)
    std::map<std::string, std::string> sweep_point;
    std::vector<int> runs;  // positions in Results::runs, by trial
    // Per trial with measured copies (ok runs only): aggregate and per-copy p50 bandwidth.
    std::vector<double> aggregate_Bps;
    std::vector<double> p50_Bps;
    double median_Bps = 0;  // median of aggregate_Bps
    double mean_Bps = 0;
    std::optional<double> ci_low, ci_high;  // Student-t 95 % interval of the mean (>= 2 trials)
    double cv = 0;                          // between trials: stddev / mean of aggregate_Bps
    double pooled_p50_Bps = 0;              // p50 of every trial's copies together
    // Medians over the same trials, for a table of the plan's runs rather than of each trial:
    // per-copy CV, Jain's index over per_worker_Bps (fairness_jain), mean copies in flight
    // (host; device where timed).
    double per_copy_cv = 0;
    double fairness_jain = 1;
    double host_concurrency = 0;
    std::optional<double> device_concurrency;
    bool is_baseline = false;
    std::optional<TrialComparison> vs_baseline;
};

struct Analysis {
    std::vector<RunAnalysis> runs;   // same order as Results::runs
    std::vector<TrialGroup> groups;  // one per label, in order of first trial
    // Position in Results::runs of the first ok run with measured copies (the plan index of a
    // run equals its position in a complete plan).
    std::optional<int> baseline_run;
    std::vector<Finding> summary;  // findings across runs
};

}  // namespace xfer
