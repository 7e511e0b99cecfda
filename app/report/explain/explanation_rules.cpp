#include "report/explain/explanation_rules.hpp"

#include <fmt/format.h>

#include "report/explain/explain_rules_internal.hpp"
#include "util/text_table.hpp"
#include "report/analysis/trial_analysis.hpp"

namespace xfer {

using namespace explain;

const std::vector<ExplanationRule>& explanation_rules() {
    // Per run, then the summary; each: id, sentence, data, switch (or observation), margin.
    static const std::vector<ExplanationRule> rules = {
        {{"no-copies", "no measured copies", "measured copies of a run that was not skipped",
          "observation", "none: zero is exact; a run without measured copies says nothing else"},
         true,
         no_copies},
        {{"calls-one-at-a-time",
          "calls never overlapped: one copy call in flight at a time (host-side peak 1, warm-ups "
          "included) with N workers[: the GIL held across the call serialized them: run K, the "
          "same with gil = release, overlapped]",
          "peak of calls in flight on the host clock, warm-ups included",
          "the GIL only with a gil switch whose release run overlapped (peak >= 2) in every "
          "trial; gil = hold without one says no cause is named; otherwise no cause",
          "2+ workers with 2+ measured copies; the peak is exact; not where calls-short says it"},
         true,
         calls_one_at_a_time},
        {{"calls-short",
          "calls never overlapped, but they had little chance to: a call took p50 T while the "
          "workers' first calls spread over S",
          "median measured call; spread of the workers' first calls (every record)",
          "observation; never for gil = hold, where the held GIL itself spreads the first calls",
          "peak 1 as above and p50 < spread / 2"},
         true,
         calls_short},
        {{"device-one-at-a-time",
          "copies never overlapped on device D: device-side peak 1 with N workers (warm-ups "
          "included)",
          "per device: peak of device-timed transfers in flight, warm-ups included", "observation",
          "2+ workers and 2+ measured device-timed copies on D"},
         true,
         device_one_at_a_time},
        {{"waiting-not-moving",
          "on device D calls overlapped (host-side concurrency X) but transfers did not "
          "(device-side Y, peak 1): calls waited T (p50, P of a call) before the device started, "
          "another transfer on it for Q of that wait, so per-copy bandwidth there measures waiting",
          "per device: host concurrency of its measured calls, its device concurrency and peak "
          "(warm-ups included), the median pre-device wait and call of its measured copies, and "
          "the share of their summed waits during which any transfer was on the device",
          "observation of the same run's numbers",
          "2+ workers on D; host concurrency >= 1.5 (overlap_host_min) and >= 1.5x "
          "(overlap_factor) the device's; device peak 1; wait p50 >= 25 % (wait_fraction) of the "
          "call p50; another transfer on the device for >= 50 % (wait_busy) of the waits"},
         true,
         waiting_not_moving},
        {{"calls-wait",
          "calls wait T (p50) before the device starts moving bytes: P of a call's p50 C",
          "median pre-device wait and median call of the measured device-timed copies",
          "observation",
          "wait p50 >= 25 % (wait_fraction) of the call p50; not where waiting-not-moving said it"},
         true,
         calls_wait},
        {{"idle-window",
          "no copy call was in flight for X of the measurement window (the workers' first calls "
          "spread over S): the aggregate divides by time in which nothing moved",
          "the union of every call overlapping the window (warm-ups included) against the window; "
          "the spread of the workers' first calls",
          "observation: a start setting (threads.start) is the switch that would show why",
          "2+ measured copies; idle share >= 20 % (idle_share)"},
         true,
         idle_window},
        {{"hand-off",
          "device D changed hands after P of consecutive copies (hand-off rate R, mean run length "
          "L): workers ... kept it (gap p50 T), workers ... handed it off after about one copy "
          "(gap p50 U), <launcher> workers return to the driver after p50 G (p90 H)",
          "the device's transfers in device-start order (measured, and warm-ups overlapping the "
          "window); each worker's runs of consecutive transfers there; its gaps (call start minus "
          "its previous return)",
          "observation",
          "a device with peak 1 and 2+ workers; kept: mean run length >= 2.0 over 5+ copies there; "
          "handed off: <= 1.5 over 5+ copies; workers between are named neither"},
         true,
         hand_off},
        {{"returned-sooner-kept",
          "on device D the workers that returned sooner kept it: every worker that kept it "
          "returned at least 1.5x sooner (gap p50) than every worker that handed it off",
          "the gap p50 of each worker named in hand-off (5+ gaps each)",
          "observation: the cause needs gap-decides",
          "the keepers' largest gap p50 x 1.5 <= the handers' smallest"},
         true,
         returned_sooner_kept},
        {{"gil-released",
          "gil = release: the GIL was not held during the copy calls, so it did not serialize "
          "them",
          "the run's gil setting (a batch releases it once for all its calls: still not held "
          "during them)",
          "observation of the setting", "a serialized device in the run"},
         true,
         gil_released},
        {{"per-context-in-run",
          "device D: transfers of N CUDA contexts overlapped (peak P) but never two within one "
          "context, though a context held up to W workers",
          "per (process, context): peak of its device-timed transfers, warm-ups included; the "
          "device's peak",
          "observation within the run: both sides are in its own records",
          "2+ contexts; every context peak 1; device peak >= 2; a context with 2+ workers"},
         true,
         per_context_in_run},
        {{"same-aggregate-slower-copies",
          "aggregate not different from the baseline's across trials (V, N trials) but per-copy "
          "p50 Kx lower than run B's: each copy took longer without the bytes per second falling "
          "| in this trial the aggregate was within the runs' noise (+-E) of run B's while "
          "per-copy p50 was Kx lower; whether the aggregates differ is V with these trials[; the "
          "copies took turns on the device (hand-off rate R) | ; the copies shared the device "
          "(device-side concurrency C)]",
          "the within-run noise comparison with the baseline of the same trial; the verdict "
          "across trials of the run's label; the run's device peaks, hand-off rate and device "
          "concurrency",
          "observation; a mechanism clause only with its own numbers",
          "aggregate within noise, p50 beyond noise and lower; never where the trials found the "
          "run faster or slower; 'without falling' only where they found no difference or a "
          "negligible one, else worded as one trial's observation; turns: every device peak 1 "
          "and hand-off rate >= 0.5 (handoff_high); shared: device concurrency >= 1.5"},
         true,
         same_aggregate_slower_copies},
        {{"slowest-call",
          "queued: the slowest call took T (Kx the median M): W waiting before the device "
          "started, X moving bytes | erratic: the slowest transfer took X (Kx the median "
          "transfer Y) | the slowest call took T (Kx the median M); without device times ...",
          "the slowest measured call, its pre-device wait and transfer; the median call and "
          "transfer",
          "observation",
          "the slowest call >= 5x the median; queued when its transfer <= 2x the median transfer"},
         true,
         slowest_call},
        {{"unequal-service",
          "unequal service in every trial (N) | its one trial, also without the copy served slowest: "
          "Jain J over the workers' bytes per second of their own transfer time (J' without it); "
          "worker W moved its bytes at P of the workers' mean rate | worker W made no measured "
          "copy | the worker served least differed between trials (workers ...)",
          "per worker: measured bytes / the sum of its transfer durations (device time when every "
          "copy has it, else its calls); Jain's index over them, with and without the copy "
          "served slowest (the longest of those durations); the same in every trial of the "
          "run's label",
          "observation; who started first is not service (each worker moves the same bytes)",
          "2+ workers; Jain < 0.9 (unequal_jain) with and without the copy served slowest, in every "
          "trial; a worker named only where it is the least served in every trial"},
         true,
         unequal_service},
        {{"scaling",
          "more threads, more (fewer) bytes per second: Sx for N threads against one thread "
          "('label') (median of K trials' ratios, each trial's above (below) 1: a to b) | scaling "
          "Sx ...: no practical difference (under 1 %) | scaling Sx ...: the trials' ratios go "
          "both ways (a to b): no consistent difference in K trials | scaling Sx ...: not "
          "testable with K trials",
          "the aggregate of each trial against the one-thread run of the same scaling key and "
          "the same trial: one ratio per trial (paired)",
          "observation across trials",
          "2+ paired trials to say anything; a direction needs 3+ (min_scaling_trials) with every "
          "trial's ratio on the same side of 1 and the median 1 %+ (practical_ratio) from 1; "
          "one trial: nothing said"},
         true,
         scaling},
        {{"shared-machine",
          "shared machine: other processes kept X of N CPUs busy while the copies ran (xferlab "
          "Y; +-R CPUs at /proc/stat's 10 ms ticks over W), the hypervisor took S% of CPU time",
          "/proc/stat busy and steal time and xferlab's own CPU time around the copies",
          "observation",
          "others minus the tick resolution (2 x CPUs x 10 ms / window) >= 0.5 CPUs and busy >= "
          "xferlab's own; or steal >= 1 % over 100+ ticks per CPU"},
         true,
         shared_machine,
         true},
        {{"far-node",
          "device D: the host pages of K of the N sampled copies (a watched program's: pageable "
          "copies) were mostly on NUMA node X, not on the device's nearest node Y",
          "per device: the node most of each copy's sampled host pages were on (move_pages: a "
          "watched copy's at its call, a worker's buffer once attached), against the node "
          "sysfs gives the device",
          "observation: where the pages are is the first touch's doing; a first_touch switch "
          "between runs moves them, but no run claims what that did to its copies",
          "the device's node known; at least one sampled copy mostly on another node"},
         true,
         far_node},
        {{"watched-reference",
          "device D h2d|d2h: the program's copies moved R per copy (p50, device-timed); xferlab "
          "timed W here after it ended at A (run K): how far apart is not tested (one trial)",
          "the watched run's device-timed copies of that device and direction; the aggregate of "
          "the page-locked reference (or xferlab.copy with --calibrate) run xferlab timed on it",
          "observation across runs: one trial each, so no difference is claimed",
          "a reference run on the device and direction with copies of the program there"},
         true,
         watched_reference},
        {{"bookkeeping",
          "input notes, interrupted, incomplete, journal lines left out, --fit, baselines, the "
          "highest and lowest aggregate",
          "the results' own fields", "observation", "none"},
         false,
         bookkeeping},
        {{"verdicts",
          "faster / slower / negligible / no difference found / not testable ... than the "
          "baseline of its sweep point: 'label' Rx, ...",
          "the trials' aggregates; two-sided Mann-Whitney U", "the plan's runs are the switch",
          "2+ trials a side; testable: 2 / C(m+n, m) < 0.05; found: p < 0.05; faster or slower "
          "only 1 %+ apart"},
         false,
         verdicts},
        {{"noise-lists",
          "aggregate inside (outside) the noise of its own run and the baseline's: runs ...; "
          "per-copy bandwidth understates runs ...: the trials found no difference in the "
          "aggregate, the copies were slower",
          "the within-run noise comparisons; each run's same-aggregate-slower-copies finding",
          "observation",
          "the noise rule; understates: the runs whose finding rests on the trials' verdict"},
         false,
         noise_lists},
        {{"gap-vs-handoff",
          "serialized devices, gap after a copy vs hand-off: run R (launcher) gap p50 T, "
          "hand-off rate X; ...",
          "per run with a serialized device: its gap p50 and mean hand-off rate there",
          "observation (a list)", "2+ such runs"},
         false,
         gap_vs_handoff},
        {{"gap-decides",
          "runs A (threads.between = X, gap p50 T) kept the device (hand-off rate R) and runs B "
          "(...) handed it over (...): with nothing else changed, the gap after a copy decides "
          "who gets the device next",
          "hand-off rates and gap p50s of runs that differ in threads.between alone",
          "cause: the threads.between switch",
          "every trial: rates <= 0.25 and >= 0.75, gaps 2x apart, the short-gap side keeping"},
         false,
         gap_decides},
        {{"context-switch",
          "with transfer.context = primary the threads never overlapped on a device (runs ...), "
          "with per-worker contexts they did (runs ...): the serialization is per context",
          "device peaks (warm-ups included) of runs that differ in transfer.context alone",
          "cause: the transfer.context switch (a process launcher against threads changes more "
          "than the context)",
          "every trial: primary peak 1 with 2+ threads, per-worker peak >= 2"},
         false,
         context_switch},
        {{"interpreter-gap",
          "runs A (launcher: its GIL) called again after a copy in p50 T against U for runs B "
          "(launcher: its GIL), at least 1.5x sooner in every trial (N); the runs differ in the "
          "launcher alone, so the interpreter the threads ran in moved the gap[; the device "
          "changed hands at rate X against Y]",
          "gap p50 of each run (every worker's gaps after a copy, host clock), per trial; the "
          "mean hand-off rate over each run's serialized devices",
          "cause: the launcher switch between python (one GIL for the process), python-ft (no "
          "GIL) and python-subinterp (a GIL per worker); they also differ in the Python build "
          "they embed, which the launcher names",
          "2+ trials; in every trial the sooner side's gap p50 x 1.5 (interpreter_gap_apart) <= "
          "the other's, and every trial of it below every trial of the other; the hand-off clause "
          "only with rates <= 0.25 and >= 0.75 in every trial"},
         false,
         interpreter_gap},
        {{"gil-serializes-work",
          "Python work between copies (params.work_us = W) lengthened the gap after a copy by D1 "
          "under python (one GIL for the process; runs ...) and by D2 under python-ft | "
          "python-subinterp (...; runs ...), medians of N trials, at least 1.5x more under one "
          "GIL in every trial: under one GIL the workers' Python work took turns",
          "per launcher, the gap p50 of the runs with and without work (params.work_us W and 0, "
          "nothing else different), its difference per trial",
          "cause: two switches, params.work_us within each launcher and the launcher between "
          "them (python against python-ft or python-subinterp, the same work)",
          "2+ trials; in every trial D1 > 0 and D1 >= 1.5 (work_turns) x the larger of D2 and 0"},
         false,
         gil_serializes_work},
        {{"warmups-in-window",
          "N warm-up copies overlapped the measurement window (runs ...): the aggregate counts "
          "the bytes they moved inside it[; on runs ..., whose devices never had two transfers "
          "at once, the workers took turns ...]",
          "warm-ups whose transfer (device interval when known) overlaps the window; device peaks",
          "observation; took turns only where every device's peak was 1", "1+ warm-up copy"},
         false,
         warmups_in_window},
        {{"failed-runs", "run N (label) failed: <the error's last traceback line or first line>",
          "run status and errors", "observation", "none"},
         false,
         failed_runs},
    };
    return rules;
}

const std::vector<RuleConstant>& rule_constants() {
    static const std::vector<RuleConstant> constants = {
        {"overlap_host_min", kOverlapHostMin, "host-side concurrency that counts as overlap"},
        {"overlap_factor", kOverlapFactor, "... and that many times the device's concurrency"},
        {"wait_fraction", kWaitFraction, "a pre-device wait p50 that is waiting, of the call p50"},
        {"wait_busy", kWaitBusy, "share of the waits with another transfer on the device"},
        {"idle_share", kIdleShare, "share of the window with no call in flight worth a line"},
        {"slow_factor", kSlowFactor, "a slowest call this many times the median call"},
        {"queued_transfer", kQueuedTransfer, "its transfer within this many times the median"},
        {"unequal_jain", kUnequalJain, "Jain's index below this is unequal service"},
        {"keep_run_length", kKeepRunLength, "mean run length of a worker that kept the device"},
        {"hand_run_length", kHandRunLength, "mean run length of a worker that handed it off"},
        {"min_sequence_copies", double(kMinSequenceCopies), "copies on the device to name a worker"},
        {"min_gaps", double(kMinGaps), "gaps per worker to compare their returns"},
        {"gap_apart", kGapApart, "keepers' gap p50 this many times shorter than handers'"},
        {"handoff_high", kHandoffHigh, "a hand-off rate that is taking turns"},
        {"practical_ratio", kPracticalRatio, "differences below this (1 %) are no difference"},
        {"min_scaling_trials", double(kMinScalingTrials), "paired trials for a scaling direction"},
        {"switch_low_rate", kSwitchLowRate, "gap-decides: the keepers' hand-off rate at most"},
        {"switch_high_rate", kSwitchHighRate, "gap-decides: the handers' hand-off rate at least"},
        {"switch_gap_apart", kSwitchGapApart, "gap-decides: gap p50s this many times apart"},
        {"interpreter_gap_apart", kInterpreterGapApart,
         "interpreter-gap: one launcher's gap p50 this many times shorter"},
        {"work_turns", kWorkTurns,
         "gil-serializes-work: the gap work added under one GIL, this many times the other's"},
        {"tick_seconds", kTickSeconds, "/proc/stat's tick (USER_HZ 100)"},
        {"notable_others", kNotableOthers, "other processes' busy CPUs worth a line"},
        {"notable_steal", kNotableSteal, "steal time worth a line"},
        {"steal_ticks_per_cpu", kStealTicksPerCpu, "... over a window of this many ticks per CPU"},
        {"verdict_level", 1 - kTrialLevel, "a verdict across trials needs p below this"},
        {"negligible_ratio", kNegligibleRatio, "a difference found below this (1 %) is negligible"},
        {"suggested_trials", double(kSuggestedTrials), "the trials --trials suggests"},
    };
    return constants;
}

std::string explanation_catalogue() {
    constexpr size_t kWidth = 100;
    std::string out;
    for (const ExplanationRule& r : explanation_rules()) {
        out += fmt::format("{} ({})\n", r.text.id, r.per_run ? "per run" : "summary");
        out += wrap(r.text.sentence, kWidth, "  sentence: ", "            ");
        out += wrap(r.text.data, kWidth, "  data:     ", "            ");
        out += wrap(r.text.cause, kWidth, "  switch:   ", "            ");
        out += wrap(r.text.margin, kWidth, "  margin:   ", "            ");
    }
    out += "\nconstants (docs/reading-reports.md, \"The catalogue's constants\")\n";
    for (const RuleConstant& c : rule_constants())
        out += fmt::format("  {} = {:g}: {}\n", c.name, c.value, c.meaning);
    return out;
}

}  // namespace xfer
