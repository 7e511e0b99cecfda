#include "report/explain/explanation_rules.hpp"

#include <fmt/format.h>

#include "report/analysis/trial_analysis.hpp"
#include "report/explain/explain_rules_internal.hpp"
#include "util/text_table.hpp"

namespace xfer {

using namespace explain;

const std::vector<ExplanationRule>& explanation_rules() {
    // One row per kind of finding: what it prints, what it reads, what makes it a cause, the
    // margin and the test it rests on, and the function that applies it. docs/reading-reports.md
    // prints these rows (`xferlab help explanations --markdown`; a test compares them).
    static const std::vector<ExplanationRule> rules = {
        {.text = {.id = "no-copies",
                  .sentence = "`no measured copies`",
                  .data = "measured copies of a run that was not skipped",
                  .cause = "observation",
                  .margin = "none: zero is exact; a run without measured copies says nothing else",
                  .test = "exact count"},
         .per_run = true,
         .apply = no_copies},
        {.text =
             {.id = "calls-one-at-a-time",
              .sentence =
                  "`calls never overlapped: one copy call in flight at a time (host-side peak "
                  "1, warm-ups included) with N workers` + one cause clause",
              .data = "peak of calls in flight (host intervals, warm-ups included)",
              .cause =
                  "cause `: the GIL held across the call serialized them: 'LABEL', the same "
                  "with gil = release, overlapped (host-side peak P)` only with a `gil` switch "
                  "whose release run has peak >= 2 in every trial (LABEL: that run's label, the "
                  "run of the same trial); from fewer than `min_cause_trials` trials the "
                  "sentence adds `; from one trial only (a cause needs 3 trials)` (or `from N "
                  "trials only`), and where runs it rests on were flagged by `shared-machine` "
                  "it adds `; K of the M runs it rests on ran on a shared machine, which may "
                  "have moved their figures`; a switch whose release run did not overlap in "
                  "every trial: `; 'LABEL', the same with gil = release, did not overlap in "
                  "every trial either, so the held GIL is not shown to be what serialized "
                  "them`; `gil = hold` without a switch: `; gil = hold, and no run of this plan "
                  "differs from it in gil alone, so no cause is named`; otherwise no cause "
                  "clause",
              .margin = "2+ workers with 2+ measured copies each; peak is exact; not where "
                        "`calls-short` says it (a gil other than `hold` and call p50 < spread / 2)",
              .test = "the peak is exact; the cause holds in every trial (the gil switch)"},
         .per_run = true,
         .apply = calls_one_at_a_time},
        {.text =
             {.id = "calls-short",
              .sentence =
                  "`calls never overlapped, but they had little chance to: a call took p50 T "
                  "while the workers' first calls spread over S`",
              .data = "median measured call, spread of the workers' first calls (all records)",
              .cause = "observation; never for `gil = hold`, where the held GIL itself spreads the "
                       "first calls",
              .margin =
                  "peak 1 as above and p50 < spread / 2"
                  "; only where the calls hold their transfers (each device-timed transfer ended "
                  "before its call returned, not so for a watched program's cudaMemcpyAsync)",
              .test = "two figures of the run compared"},
         .per_run = true,
         .apply = calls_short},
        {.text = {.id = "device-one-at-a-time",
                  .sentence =
                      "`copies never overlapped on device D: device-side peak 1 with N workers "
                      "(warm-ups included)`",
                  .data = "per-device peak of device-timed calls in flight",
                  .cause = "observation",
                  .margin = "2+ workers and 2+ measured device-timed copies on D",
                  .test = "the peak is exact"},
         .per_run = true,
         .apply = device_one_at_a_time},
        {.text =
             {.id = "waiting-not-moving",
              .sentence =
                  "`on device D calls overlapped (host-side concurrency X) but transfers did "
                  "not (device-side Y, peak 1): calls waited T (p50, P of a call) before the "
                  "device started, another transfer on it for Q of that wait, so per-copy "
                  "bandwidth there measures waiting`",
              .data = "per device: host concurrency of the measured calls on D, device concurrency "
                      "and peak on D (warm-ups included), median pre-device wait of the measured "
                      "calls on D, and Q: the share of those calls' summed waits during which any "
                      "transfer (warm-ups included) was on D",
              .cause = "observation of the same run's numbers",
              .margin =
                  "2+ workers on D; host concurrency >= `overlap_host_min` and >= "
                  "`overlap_factor` x device concurrency; device peak 1; pre-device wait p50 >= "
                  "`wait_fraction` of the call p50 on D; Q >= `wait_busy` (a call that waited "
                  "while the device was idle waited for something else)"
                  "; only where the calls hold their transfers (each device-timed transfer ended "
                  "before its call returned, not so for a watched program's cudaMemcpyAsync)",
              .test = "thresholds on the run's own figures (margin)"},
         .per_run = true,
         .apply = waiting_not_moving},
        {.text =
             {.id = "calls-wait",
              .sentence =
                  "`calls wait T (p50) before the device starts moving bytes: P of a call's p50 "
                  "C`",
              .data = "median pre-device wait, median call (measured, device-timed)",
              .cause = "observation",
              .margin =
                  "wait p50 >= `wait_fraction` of call p50; not said when `waiting-not-moving` "
                  "was said for any device of the run"
                  "; only where the calls hold their transfers (each device-timed transfer ended "
                  "before its call returned, not so for a watched program's cudaMemcpyAsync)",
              .test = "thresholds on the run's own figures (margin)"},
         .per_run = true,
         .apply = calls_wait},
        {.text =
             {.id = "idle-window",
              .sentence =
                  "`no copy call was in flight for X of the measurement window (the workers' "
                  "first calls spread over S): the aggregate divides by time in which nothing "
                  "moved`",
              .data = "the union of every call overlapping W (warm-ups and failed blocks included) "
                      "against W; the spread of the workers' first calls (every record)",
              .cause = "observation: `threads.start` is the switch that would show why",
              .margin =
                  "2+ measured copies; X >= `idle_share`"
                  "; only where the calls hold their transfers (each device-timed transfer ended "
                  "before its call returned, not so for a watched program's cudaMemcpyAsync)",
              .test = "thresholds on the run's own figures (margin)"},
         .per_run = true,
         .apply = idle_window},
        {.text = {.id = "hand-off",
                  .sentence =
                      "`device D changed hands at rate R (mean run length L): K of N workers kept "
                      "it, M handed it off after about one copy; <launcher> workers return to the "
                      "driver after p50 G (p90 H)` (counts, not the workers: which ones kept it "
                      "changes between trials; --full gives each worker's run length)",
                  .data =
                      "the device's sequence of transfers in device-start order (measured ones and "
                      "warm-ups overlapping W); each worker's runs of consecutive transfers on D; "
                      "gaps: call start minus the same worker's previous return; G and H over the "
                      "gaps before the measured copies on D alone",
                  .cause = "observation",
                  .margin =
                      "a device with peak 1 and 2+ workers; \"kept\" only for a mean run length >= "
                      "2.0 over 5+ copies on D, \"handed it off\" only for <= 1.5 over 5+ copies; "
                      "workers between are counted in neither; never where calls return before "
                      "their transfers (a watched cudaMemcpyAsync: the queue orders the device)",
                  .test = "bands on each worker's own figures"},
         .per_run = true,
         .apply = hand_off,
         .in_table = true},
        {.text = {.id = "returned-sooner-kept",
                  .sentence =
                      "`on device D the workers that returned sooner kept it: every worker that "
                      "kept it returned at least 1.5x sooner (gap p50) than every worker that "
                      "handed it off`",
                  .data = "each named worker's gap p50 (5+ gaps each)",
                  .cause = "observation: the cause needs `gap-decides`",
                  .margin = "the keepers' largest gap p50 x 1.5 <= the handers' smallest; never "
                            "where calls return before their transfers",
                  .test = "bands apart"},
         .per_run = true,
         .apply = returned_sooner_kept},
        {.text = {.id = "gil-released",
                  .sentence =
                      "`gil = release: the GIL was not held during the copy calls, so it did not "
                      "serialize them`",
                  .data =
                      "the run's gil setting (a batch `w.copy(count=n)` releases it once for the "
                      "batch: still not held during the calls)",
                  .cause = "observation of the setting",
                  .margin =
                      "a serialized device in the run (peak 1 with 2+ workers, warm-ups included, "
                      "as `hand-off` needs)",
                  .test = "the setting"},
         .per_run = true,
         .apply = gil_released},
        {.text = {.id = "per-context-in-run",
                  .sentence =
                      "`device D: transfers of N CUDA contexts overlapped (peak P) but never two "
                      "within one context, though a context held up to W workers`",
                  .data = "per (process, context): peak of its device-timed transfers in flight "
                          "(warm-ups included); across them, the device's peak",
                  .cause = "observation within the run: both sides are in its own records",
                  .margin =
                      "2+ contexts; every context peak 1; device peak >= 2; some context with 2+ "
                      "workers",
                  .test = "the peaks are exact"},
         .per_run = true,
         .apply = per_context_in_run},
        {.text =
             {.id = "same-aggregate-slower-copies",
              .sentence =
                  "where the trials found no difference (or a negligible one): `aggregate not "
                  "different from the baseline's across trials (V, N trials) but per-copy p50 "
                  "Kx lower than the baseline's ('LABEL'): each copy took longer` + ` without "
                  "the bytes per second falling by more than 5% (95% CI of the aggregate ratio "
                  "[a, b])` where the CI's lower end is at least 1 - `fall_bound`, else `; the "
                  "aggregate's 95% CI [a, b] allows a fall of up to F, so whether the bytes per "
                  "second fell is open` (`, and with no 95% CI at these trial counts a fall of "
                  "the aggregate is not ruled out` without a CI); where they could not tell "
                  "(one trial, or too few): `in this trial the aggregate was within the runs' "
                  "noise (+-E) of the baseline's ('LABEL') while per-copy p50 was Kx lower; "
                  "whether the aggregates differ is V with these trials`; either + `; the "
                  "copies took turns on the device (hand-off rate R)` only where the run's "
                  "devices had peak 1 and hand-off rate >= `handoff_high`, or `; the copies "
                  "shared the device (device-side concurrency C)` only where device concurrency "
                  ">= `overlap_host_min`",
              .data = "within-run noise comparison with the baseline of the same trial (E: its "
                      "bound); the verdict across trials of the run's label (V) and its 95% CI of "
                      "the ratio; per-device peak, hand-off rate, concurrency",
              .cause = "observation; the mechanism clause only with its own numbers",
              .margin =
                  "aggregate within noise, p50 beyond noise and lower (noise rule below); never "
                  "where the trials found the run faster or slower, nor where the run's or the "
                  "baseline's calls return before their transfers (a call's time is no copy's)",
              .test = "this trial: the within-run noise rule; across trials: the Mann-Whitney "
                      "verdict, and \"without falling\" only from its 95% CI"},
         .per_run = true,
         .apply = same_aggregate_slower_copies},
        {.text =
             {.id = "slowest-call",
              .sentence =
                  "`queued: the slowest call took T (Kx the median M): W waiting before the "
                  "device started, X moving bytes (a transfer's median is Y)` where its "
                  "transfer took <= 2x the median transfer; `erratic: the slowest transfer took "
                  "X (Kx the median transfer Y) in a call of T` where the slowest call's "
                  "transfer took more (\"the slowest transfer\" is that call's); without device "
                  "times `the slowest call took T (Kx the median M); without device times "
                  "waiting and moving bytes cannot be told apart`",
              .data = "the slowest measured call: its pre-device wait and its transfer; the median "
                      "measured call and transfer",
              .cause = "observation",
              .margin = "the slowest call >= `slow_factor` x the median call",
              .test = "thresholds on the run's own figures (margin)"},
         .per_run = true,
         .apply = slowest_call,
         .full_only = true},
        {.text =
             {.id = "unequal-service",
              .sentence =
                  "`unequal service in every trial (N), also without the copy served slowest: "
                  "Jain J over the workers' bytes per second of their own transfer time (J' "
                  "without it); worker W moved its bytes at P of the workers' mean rate` (`in "
                  "its one trial` with one trial); `...; the worker served least differed "
                  "between trials (workers ...)` where it was not the same worker in every "
                  "trial; where a planned worker made no copy `unequal service in every trial "
                  "(N): worker W made no measured copy (Jain J over the workers' bytes per "
                  "second of their own transfer time)`",
              .data = "per worker: measured bytes / the sum of its transfers' device durations "
                      "(host call durations without device times); Jain's index over those, with "
                      "and without the copy served slowest (the longest of those durations: a call "
                      "that only waited behind another transfer is not it); the same for every "
                      "trial of the run's label",
              .cause = "observation",
              .margin =
                  "2+ workers; Jain < `unequal_jain`, and also without the copy served slowest "
                  "(a worker with no copy at all needs no second look), in every trial; a "
                  "worker is named only where it is the least served in every trial. Each "
                  "worker's own window (when it started and ended) is not service: with a fixed "
                  "repetition count every worker moves the same bytes, and who went first is "
                  "not who was served worse",
              .test = "every trial"},
         .per_run = true,
         .apply = unequal_service},
        {.text =
             {.id = "scaling",
              .sentence =
                  "`more threads, more bytes per second: Sx for N threads against one thread "
                  "('LABEL') (median of K paired trials' ratios, above 1 in J of K: a to b; "
                  "sign test p = P)` (`fewer`, `below` the other way); `scaling Sx ...: above 1 "
                  "in K of K paired trials (a to b), not significant: sign test p = P (all "
                  "trials one way reach 5 % from 6 trials)`; `scaling Sx ...: the median within "
                  "1 % of 1 (a to b in K paired trials)`; `scaling Sx ...: the trials' ratios "
                  "go both ways (a to b): no consistent difference in K trials` (LABEL: the "
                  "one-thread run's label; the same text for every trial of the run; a and b "
                  "the lowest and highest trial ratio)",
              .data = "the ratio of each trial's aggregate to the same trial's one-thread run with "
                      "the same `scaling_key` (paired by trial)",
              .cause = "observation across trials",
              .margin =
                  "2+ paired trials to say anything; \"more\" / \"fewer\" only where the sign "
                  "test's p < `sign_level` and the median is `practical_ratio` or more from 1. "
                  "One trial: nothing is said (the table shows the ratio)",
              .test = "two-sided sign test of the paired ratios against 1"},
         .per_run = true,
         .apply = scaling},
        {.text = {.id = "shared-machine",
                  .sentence =
                      "`shared machine: other processes kept X of N CPUs busy while the copies ran "
                      "(xferlab Y; +-R CPUs at /proc/stat's 10 ms ticks over W), the hypervisor "
                      "took S% of CPU time (steal): the copies may have waited for CPUs or memory "
                      "bandwidth they shared` (\"while the run's workers ran (buffers prepared and "
                      "copies made)\" for span \"run\"; \"; the other MPI ranks on this host count "
                      "as other processes\" before the last colon for launcher mpi). The default "
                      "and brief reports say these in one line (`Machine: shared during K of N "
                      "runs: ...`)",
                  .data = "/proc/stat busy time and xferlab's own CPU time around the copies "
                          "(`host_activity`)",
                  .cause = "observation",
                  .margin =
                      "others' CPUs minus the tick resolution >= `notable_others`, where the "
                      "resolution is 2 x CPUs x 10 ms / window (two samples of 10 ms ticks); busy "
                      ">= xferlab's own; or steal >= `notable_steal` over a window of "
                      "`steal_ticks_per_cpu`+ ticks per CPU. Over a window too short to tell, "
                      "nothing is said",
                  .test = "thresholds over the tick resolution"},
         .per_run = true,
         .apply = shared_machine,
         .changes_reading = true},
        {.text = {.id = "far-node",
                  .sentence = "`device D: the host pages of K of the N sampled copies (a watched "
                              "program's: pageable copies) were mostly on NUMA node X, not on the "
                              "device's nearest node Y`",
                  .data = "per device: the node most of each copy's sampled host pages were on "
                          "(move_pages: a watched copy's at its call, a worker's buffer once "
                          "attached), against the node sysfs gives the device",
                  .cause = "observation: where the pages are is the first touch's doing; a "
                           "first_touch switch between runs moves them, but no run claims what "
                           "that did to its copies",
                  .margin = "the device's node known; at least one sampled copy mostly on another "
                            "node",
                  .test = "exact counts of the sampled copies"},
         .per_run = true,
         .apply = far_node},
        {.text = {.id = "watched-reference",
                  .sentence =
                      "`device D h2d|d2h: the program's copies moved R per copy (p50, "
                      "device-timed); xferlab timed W here after it ended at A (run K): how far "
                      "apart is not tested (one trial)`",
                  .data = "the watched run's device-timed copies of that device and direction; the "
                          "aggregate of the page-locked reference (or xferlab.copy with "
                          "--calibrate) run xferlab timed on it",
                  .cause = "observation across runs: one trial each, so no difference is claimed",
                  .margin = "a reference run on the device and direction with copies of the "
                            "program there",
                  .test = "none: one trial a side, said as such"},
         .per_run = true,
         .apply = watched_reference},
        {.text = {.id = "bookkeeping",
                  .sentence =
                      "`input: ...`, interrupted, incomplete, journal lines left out, `--fit`, the "
                      "baseline (with trials: its label), the highest and lowest aggregate (with "
                      "trials: the labels with the highest and lowest median aggregate)",
                  .data = "the results' own fields; with trials the medians of the trials table",
                  .cause = "observation",
                  .margin = "none",
                  .test = "none"},
         .per_run = false,
         .apply = bookkeeping},
        {.text = {.id = "verdicts",
                  .sentence =
                      "`<ratio>x, <finding> (<evidence>)`; summary lines `faster than the baseline "
                      "of its sweep point: 'L' Rx, ...`, `slower than ...`, `a difference from the "
                      "baseline of its sweep point under 1 % (negligible): ...`, `no difference "
                      "found from the baseline of its sweep point: ...`, `not testable with these "
                      "trial counts (the test cannot reach p < 0.05; run with --trials 5): ...`, "
                      "and `one trial per run: drift between runs is unknown, so no run is called "
                      "faster or slower; run with --trials 5 (or scenario.trials) to judge`",
                  .data = "trial aggregates, Mann-Whitney test (below)",
                  .cause = "the plan's runs are the switch",
                  .margin = "below (\"Verdicts: testable, negligible, not tested\")",
                  .test =
                      "two-sided Mann-Whitney U at `verdict_level`; the 95% CI of the ratio that "
                      "inverts it"},
         .per_run = false,
         .apply = verdicts},
        {.text =
             {.id = "noise-lists",
              .sentence =
                  "`aggregate inside (outside) the noise of its own run and the baseline's: "
                  "runs ...` (without trials only); `per-copy bandwidth understates 'LABEL' (J "
                  "of K trials), ...: the trials found no difference in the aggregate, the "
                  "copies were slower` (the runs whose `same-aggregate-slower-copies` rests on "
                  "the trials' verdict; no mechanism: each run's own sentence names one where "
                  "its numbers show it)",
              .data = "the within-run noise comparisons; each run's same-aggregate-slower-copies "
                      "finding",
              .cause = "observation",
              .margin =
                  "the noise rule; left out where the plan has trials (the verdicts across them "
                  "judge the runs: one run's noise does not cover drift between runs)",
              .test = "the within-run noise rule; with trials the Mann-Whitney verdict"},
         .per_run = false,
         .apply = noise_lists},
        {.text =
             {.id = "gap-vs-handoff",
              .sentence =
                  "`serialized devices, gap after a copy vs hand-off: 'LABEL' (J of K trials) "
                  "(launcher) gap p50 T, hand-off rate X; ...` (with trials one part per label, "
                  "T and X as `lo to hi` over its trials; without trials `run R`)",
              .data = "per run with a serialized device: the gap p50 of its workers, the mean "
                      "hand-off rate over its serialized devices",
              .cause = "observation (a list)",
              .margin = "2+ such labels; runs whose calls return before their transfers are left out",
              .test = "none: a list of figures"},
         .per_run = false,
         .apply = gap_vs_handoff,
         .full_only = true},
        {.text =
             {.id = "gap-decides",
              .sentence =
                  "`run(s) A (threads.between = none, gap p50 T) kept the device (hand-off rate "
                  "X) and run(s) B (threads.between = spin:50us, gap p50 U) handed it over "
                  "(hand-off rate Y): with nothing else changed, the gap after a copy decides "
                  "who gets the device next` (gaps and rates: medians over the trials); from "
                  "fewer than `min_cause_trials` trials the sentence adds `; from one trial "
                  "only (a cause needs 3 trials)` (or `from N trials only`), and where runs it "
                  "rests on were flagged by `shared-machine` it adds `; K of the M runs it "
                  "rests on ran on a shared machine, which may have moved their figures`",
              .data = "the same, for pairs of runs that differ in `threads.between` alone",
              .cause = "cause: the `threads.between` switch",
              .margin =
                  "in every trial pair: hand-off rates <= `switch_low_rate` on one side and >= "
                  "`switch_high_rate` on the other, gaps at least `switch_gap_apart` x apart, "
                  "the short-gap side the keeper",
              .test = "every trial (bands apart); from `min_cause_trials` trials, and with no run "
                      "flagged by `shared-machine`, else the sentence says so"},
         .per_run = false,
         .apply = gap_decides},
        {.text =
             {.id = "context-switch",
              .sentence =
                  "`with transfer.context = primary the threads never overlapped on a device "
                  "(runs ...), with per-worker contexts they did (runs ...): the serialization "
                  "is per context`; from fewer than `min_cause_trials` trials the sentence adds "
                  "`; from one trial only (a cause needs 3 trials)` (or `from N trials only`), "
                  "and where runs it rests on were flagged by `shared-machine` it adds `; K of "
                  "the M runs it rests on ran on a shared machine, which may have moved their "
                  "figures`",
              .data = "device peak of runs that differ in `transfer.context` alone",
              .cause =
                  "cause: the `transfer.context` switch (a process launcher against threads is "
                  "not one: it changes more than the context)",
              .margin =
                  "primary-context runs of 2+ threads peak 1 and per-worker runs peak >= 2, in "
                  "every trial",
              .test = "the peaks are exact, in every trial; from `min_cause_trials` trials, and "
                      "with no run flagged by `shared-machine`, else the sentence says so"},
         .per_run = false,
         .apply = context_switch},
        {.text =
             {.id = "interpreter-gap",
              .sentence =
                  "`runs A (python-ft: no GIL) called again after a copy in p50 T against U for "
                  "runs B (python: one GIL for the process), at least 1.5x sooner in every "
                  "trial (N); the runs differ in the launcher alone, so the interpreter the "
                  "threads ran in moved the gap` + `; the device changed hands at rate X "
                  "against Y` (gaps and rates: medians over the trials); from fewer than "
                  "`min_cause_trials` trials the sentence adds `; from one trial only (a cause "
                  "needs 3 trials)` (or `from N trials only`), and where runs it rests on were "
                  "flagged by `shared-machine` it adds `; K of the M runs it rests on ran on a "
                  "shared machine, which may have moved their figures`",
              .data = "per run, the gap p50 of every worker's gaps after a copy (host clock), per "
                      "trial; the mean hand-off rate over its serialized devices",
              .cause =
                  "cause: the launcher switch between `python` (one GIL for the process), "
                  "`python-ft` (no GIL) and `python-subinterp` (a GIL per worker); the launcher "
                  "also names the Python build it embeds",
              .margin =
                  "2+ trials; in every trial the sooner side's gap p50 x "
                  "`interpreter_gap_apart` <= the other's, and every trial of it below every "
                  "trial of the other; the hand-off clause only with rates <= `switch_low_rate` "
                  "and >= `switch_high_rate` in every trial",
              .test = "every trial (bands apart); from `min_cause_trials` trials, and with no run "
                      "flagged by `shared-machine`, else the sentence says so"},
         .per_run = false,
         .apply = interpreter_gap},
        {.text = {.id = "gil-serializes-work",
                  .sentence =
                      "`Python work between copies (params.work_us = W) lengthened the gap after a "
                      "copy by D1 under python (one GIL for the process; runs ...) and by D2 under "
                      "python-ft (no GIL; runs ...), medians of N trials, at least 1.5x more under "
                      "one GIL in every trial: under one GIL the workers' Python work took turns` "
                      "(or python-subinterp, a GIL per worker); from fewer than `min_cause_trials` "
                      "trials the sentence adds `; from one trial only (a cause needs 3 trials)` "
                      "(or `from N trials only`), and where runs it rests on were flagged by "
                      "`shared-machine` it adds `; K of the M runs it rests on ran on a shared "
                      "machine, which may have moved their figures`",
                  .data =
                      "per launcher, the gap p50 of its runs with and without work "
                      "(`params.work_us` W and 0, nothing else different), their difference per "
                      "trial (D)",
                  .cause =
                      "cause: two switches, `params.work_us` within each launcher and the launcher "
                      "between python and the other, the same work",
                  .margin =
                      "2+ trials; in every trial D1 > 0 and D1 >= `work_turns` x the larger of D2 "
                      "and 0",
                  .test =
                      "every trial (bands apart); from `min_cause_trials` trials, and with no run "
                      "flagged by `shared-machine`, else the sentence says so"},
         .per_run = false,
         .apply = gil_serializes_work},
        {.text = {.id = "warmups-in-window",
                  .sentence =
                      "`N warm-up copies overlapped the measurement window (runs ...): the "
                      "aggregate counts the bytes they moved inside it` + `; on runs ..., whose "
                      "devices never had two transfers at once, the workers took turns, so one "
                      "worker's warm-up ran inside another's measured copies` for the runs whose "
                      "every device had 2+ workers and peak 1 (warm-ups included); with trials the "
                      "runs by label (`'LABEL' (every trial)`)",
                  .data = "warm-ups whose transfer (device interval when known) overlaps W",
                  .cause = "observation; \"took turns\" only with the device peak 1 it rests on",
                  .margin = "1+ warm-up copy",
                  .test = "exact counts"},
         .per_run = false,
         .apply = warmups_in_window,
         .full_only = true},
        {.text = {.id = "failed-runs",
                  .sentence =
                      "`run N (label) failed: <the error's last traceback line or first line>`",
                  .data = "run status and errors",
                  .cause = "observation",
                  .margin = "none",
                  .test = "none"},
         .per_run = false,
         .apply = failed_runs},

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
        {"min_sequence_copies", double(kMinSequenceCopies),
         "copies on the device to name a worker"},
        {"min_gaps", double(kMinGaps), "gaps per worker to compare their returns"},
        {"gap_apart", kGapApart, "keepers' gap p50 this many times shorter than handers'"},
        {"handoff_high", kHandoffHigh, "a hand-off rate that is taking turns"},
        {"practical_ratio", kPracticalRatio, "differences below this (1 %) are no difference"},
        {"sign_level", kSignLevel,
         "a direction from paired trials needs the sign test's p below this"},
        {"fall_bound", kFallBound,
         "'without falling' only where the 95% CI rules out a larger fall"},
        {"min_cause_trials", double(kMinCauseTrials),
         "trials under a cause named without a caveat"},
        {"switch_low_rate", kSwitchLowRate, "gap-decides: the keepers' hand-off rate at most"},
        {"switch_high_rate", kSwitchHighRate, "gap-decides: the handers' hand-off rate at least"},
        {"switch_gap_apart", kSwitchGapApart, "gap-decides: gap p50s this many times apart"},
        {"interpreter_gap_apart", kInterpreterGapApart,
         "interpreter-gap: one launcher's gap p50 this many times shorter"},
        {"work_turns", kWorkTurns,
         "gil-serializes-work: the gap work added under one GIL, this many times the other's"},
        {"tick_seconds", kTickSeconds, "/proc/stat's tick (USER_HZ 100)"},
        {"notable_others", kNotableOthers, "other processes' busy CPUs worth a line"},
        {"notable_steal", kNotableSteal, "steal time worth a line on its own"},
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
        out += wrap(r.text.test, kWidth, "  test:     ", "            ");
        out += wrap(printed_where(r), kWidth, "  printed:  ", "            ");
    }
    out += "\nconstants (docs/reading-reports.md, \"The catalogue's constants\")\n";
    for (const RuleConstant& c : rule_constants())
        out += fmt::format("  {} = {:g}: {}\n", c.name, c.value, c.meaning);
    return out;
}

std::string printed_where(const ExplanationRule& r) {
    if (!r.per_run) return r.full_only ? "the summary of --full" : "the summary";
    if (r.in_table) return "the Hand-off table (default); each run's section (--full)";
    if (r.changes_reading)
        return "the Machine line (default, --brief); each run's section (--full)";
    if (r.full_only) return "each run's section (--full)";
    return "Why (default); each run's section (--full)";
}

std::string explanation_catalogue_markdown() {
    const auto table = [](bool per_run) {
        std::string out =
            "| id | sentence (shape) | data | switch / words | margin | test | printed |\n"
            "| --- | --- | --- | --- | --- | --- | --- |\n";
        for (const ExplanationRule& r : explanation_rules())
            if (r.per_run == per_run)
                out += fmt::format("| `{}` | {} | {} | {} | {} | {} | {} |\n", r.text.id,
                                   r.text.sentence, r.text.data, r.text.cause, r.text.margin,
                                   r.text.test, printed_where(r));
        return out;
    };
    return "### Per run\n\n" + table(true) + "\n### Across runs (the summary)\n\n" + table(false);
}

}  // namespace xfer
