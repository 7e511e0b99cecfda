"""Unit tests of audit_explanations.py (issue 32): its own recomputations on tiny hand-built
records, the classification of every catalogue shape (and of the old ones), and each synthetic
fixture of tests/fixtures/explanations audited offline against the sentences the catalogue
says for it (they must pass) and the sentences the old rules printed (they must not).

Run: python3 -m unittest -v test_audit_explanations (from tests/python). Standard library only.
"""

import json
import math
import os
import unittest

import audit_explanations as ax

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures",
                        "explanations")
MS = 1_000_000


def rec(worker, hs, he, ds=-1, de=-1, device=-1, warmup=False, size=100_000_000, context=0,
        pid=1):
    return {"worker": worker, "host_start_ns": hs, "host_end_ns": he, "device_start_ns": ds,
            "device_end_ns": de, "device": device, "warmup": warmup, "size_bytes": size,
            "context": context, "pid": pid}


def run_of(records, index=0, threads=2, launcher="host", **settings):
    key = json.dumps({"launcher": launcher, "gil": settings.get("gil", "release"),
                      "transfer": {"context": settings.get("context", "primary")},
                      "threads": {"between": settings.get("between", "none")}})
    return {"index": index, "label": f"run {index}", "launcher": launcher, "threads": threads,
            "status": "ok", "trial": settings.get("trial", 1), "scaling_key": key,
            "settings": dict(settings, launcher=launcher), "records": records}


def facts(records, **kw):
    return ax.RunFacts(run_of(records, **kw))


class Statistics(unittest.TestCase):
    def test_percentile_type7(self):
        xs = list(range(1, 11))
        self.assertAlmostEqual(ax.percentile(xs, 0.1), 1.9)
        self.assertAlmostEqual(ax.percentile(xs, 0.5), 5.5)
        self.assertAlmostEqual(ax.percentile(xs, 0.9), 9.1)

    def test_peak_touching_intervals_count_once(self):
        self.assertEqual(ax.peak([(0, 10), (10, 20), (20, 30)]), 1)
        self.assertEqual(ax.peak([(0, 10), (5, 20), (6, 7)]), 3)

    def test_mean_concurrency(self):
        self.assertAlmostEqual(ax.mean_concurrency([(0, 10), (10, 20)]), 1.0)
        self.assertAlmostEqual(ax.mean_concurrency([(0, 10), (0, 10)]), 2.0)

    def test_mann_whitney_exact(self):
        self.assertAlmostEqual(ax.mann_whitney_p([1, 2, 3, 4, 5], [6, 7, 8, 9, 10]), 2 / 252)
        self.assertAlmostEqual(round(ax.mann_whitney_p([6, 7, 8, 9, 10], [1, 2, 3, 4, 5]), 5),
                               0.00794)
        self.assertAlmostEqual(ax.mann_whitney_p([1, 2, 3], [4, 5, 6]), 0.1)
        # U = 1 of 3 vs 3: P(U <= 1) = 2/20
        self.assertAlmostEqual(ax.mann_whitney_p([1, 2, 4], [3, 5, 6]), 0.2)
        self.assertAlmostEqual(ax.mann_whitney_p([1, 3, 5], [2, 4, 6]), 0.7)
        self.assertAlmostEqual(ax.mann_whitney_p([1, 2, 3, 4], [5, 6, 7, 8]), 2 / 70)

    def test_mann_whitney_ties_normal(self):
        p = ax.mann_whitney_p([1, 2, 2, 3], [2, 4, 5, 6])
        self.assertTrue(0 < p <= 1)
        self.assertAlmostEqual(p, ax.mann_whitney_p([2, 4, 5, 6], [1, 2, 2, 3]))

    def test_smallest_p(self):
        self.assertAlmostEqual(ax.smallest_p(3, 3), 0.1)
        self.assertAlmostEqual(round(ax.smallest_p(3, 4), 3), 0.057)
        self.assertAlmostEqual(round(ax.smallest_p(4, 4), 3), 0.029)
        self.assertAlmostEqual(round(ax.smallest_p(5, 5), 4), 0.0079)
        self.assertEqual(ax.smallest_p(1, 1), 1.0)

    def test_jain(self):
        self.assertAlmostEqual(ax.jain([1, 1, 1, 1]), 1.0)
        self.assertAlmostEqual(ax.jain([1, 0, 0, 0]), 0.25)

    def test_within_noise(self):
        # docs/reading-reports.md: cv 0.107 over 8 copies a side, bound 0.107
        se = 0.107 / math.sqrt(8)
        self.assertTrue(ax.within_noise(1.05, se, se)[0])
        self.assertFalse(ax.within_noise(1.12, se, se)[0])


class PrintedNumbers(unittest.TestCase):
    def test_durations_three_significant_figures(self):
        self.assertTrue(ax.close_duration("2.67 s", 2.672e9))
        self.assertFalse(ax.close_duration("2.67 s", 2.70e9))
        self.assertTrue(ax.close_duration("36 us", 36_040))
        self.assertTrue(ax.close_duration("479 ns", 479.4))
        self.assertTrue(ax.close_duration("1.4 s", 1.4021e9))
        self.assertFalse(ax.close_duration("1.4 s", 1.41e9))

    def test_fixed_decimals(self):
        self.assertTrue(ax.close_ratio("0.99x", 0.994))
        self.assertFalse(ax.close_ratio("1.00x", 0.994))
        self.assertTrue(ax.close_percent("14%", 0.1428))
        self.assertTrue(ax.close_percent("4.8%", 0.0476))
        self.assertTrue(ax.close_gbps("55.11", 55.112e9))


class RunQuantities(unittest.TestCase):
    def test_peak_counts_warmups_in_flight(self):
        # Worker 0's measured calls run one at a time; worker 1's warm-up is still running.
        r = facts([rec(0, 0, 10, warmup=True), rec(1, 0, 50, warmup=True),
                   rec(0, 10, 20), rec(0, 20, 30), rec(1, 50, 60), rec(1, 60, 70)])
        self.assertEqual(r.host_peak_measured, 1)
        self.assertEqual(r.host_peak, 2)
        self.assertEqual(r.window, (10, 70))

    def test_warmup_before_the_window_is_not_in_flight(self):
        r = facts([rec(0, 0, 10, warmup=True), rec(1, 0, 9, warmup=True),
                   rec(0, 10, 20), rec(1, 20, 30)])
        self.assertEqual(r.host_peak, 1)

    def test_per_device_and_across_devices(self):
        # Two workers, each on its own device, overlapping: per device peak 1, across 2.
        records = [rec(w, 0, 100, 1, 99, device=w) for w in (0, 1)]
        records += [rec(w, 100, 200, 101, 199, device=w) for w in (0, 1)]
        r = facts(records)
        self.assertEqual([r.device_peak(0), r.device_peak(1)], [1, 1])
        self.assertEqual(r.across_devices_peak, 2)
        self.assertAlmostEqual(r.across_devices_concurrency, 4 * 98 / 198)
        self.assertEqual(r.device_workers(0), [0])
        self.assertFalse(r.serialized(0))
        holds, why = ax.waiting_holds(r, 0)
        self.assertFalse(holds)
        self.assertIn("1 worker(s) on device 0", why)

    def test_device_peak_counts_warmups(self):
        records = [rec(1, 0, 40, 5, 35, device=0, warmup=True),
                   rec(0, 10, 20, 11, 19, device=0), rec(0, 20, 30, 21, 29, device=0)]
        r = facts(records)
        self.assertEqual(r.device_peak(0), 2)

    def test_waiting_not_moving_margin(self):
        # Four workers call at once; the device serves one at a time (10 each).
        records, t = [], 0
        for k in range(3):
            for w in range(4):
                start = k * 40
                records.append(rec(w, start, start + 10 * (w + 1) + 1, start + 10 * w + 1,
                                   start + 10 * (w + 1), device=0))
        r = facts(records, threads=4)
        self.assertEqual(r.device_peak(0), 1)
        holds, why = ax.waiting_holds(r, 0)
        self.assertTrue(holds, why)

    def test_handoff_sequence_and_run_lengths(self):
        order = [0, 0, 1, 1, 0, 0, 0, 1, 0, 0]
        records, t = [], 0
        for w in order:
            records.append(rec(w, t, t + 10, t + 1, t + 9, device=0))
            t += 10
        r = facts(records)
        rate, length = r.handoff(0)
        self.assertAlmostEqual(rate, 4 / 9)
        self.assertAlmostEqual(length, 10 / 5)
        self.assertEqual(r.run_length(0, 0), (7 / 3, 7))
        self.assertEqual(r.run_length(0, 1), (3 / 2, 3))
        self.assertTrue(r.keeps(0, 0))
        self.assertFalse(r.hands_off(0, 1))        # 1.5, but only 3 copies

    def test_handoff_margin_between_is_neither(self):
        order = [1, 1, 0, 0, 1, 1, 0, 0, 0, 1]    # worker 0 2.5 over 5, worker 1 1.67 over 5
        records, t = [], 0
        for w in order:
            records.append(rec(w, t, t + 10, t + 1, t + 9, device=0))
            t += 10
        r = facts(records)
        self.assertTrue(r.keeps(0, 0))
        self.assertFalse(r.keeps(0, 1))
        self.assertFalse(r.hands_off(0, 1))

    def test_gaps_before_measured_calls(self):
        r = facts([rec(0, 0, 10, warmup=True), rec(0, 13, 20), rec(0, 25, 30),
                   rec(1, 0, 5)])
        self.assertEqual(r.worker_gaps(0), [3, 5])
        self.assertEqual(r.worker_gaps(1), [])

    def test_service_is_bytes_per_transfer_time(self):
        # Equal bytes and transfer times; worker 1 started late (its own window is longer).
        records = [rec(0, 0, 10, 0, 10, device=0), rec(0, 10, 20, 10, 20, device=0),
                   rec(1, 0, 30, 20, 30, device=0), rec(1, 30, 40, 30, 40, device=0)]
        self.assertAlmostEqual(facts(records).jain_service, 1.0)

    def test_aggregate_counts_warmup_bytes_inside_the_window(self):
        r = facts([rec(0, 0, 10, warmup=True, size=100), rec(0, 10, 20, size=100),
                   rec(1, 5, 15, warmup=True, size=100)])
        self.assertAlmostEqual(r.aggregate, 150 / (10 / 1e9))
        self.assertEqual(r.warmups_in_window, 1)

    def test_batched_gil(self):
        r = ax.RunFacts(run_of([], launcher="python", gil="release", payload="threads_batch.py"))
        self.assertTrue(r.batched)
        self.assertEqual(r.gil, "release")
        self.assertIsNone(ax.RunFacts(run_of([], launcher="host")).gil)


class Switches(unittest.TestCase):
    def plan(self, *runs):
        return ax.Plan({"runs": [dict(r, index=i) for i, r in enumerate(runs)]})

    def test_differs_only_in(self):
        plan = self.plan(run_of([], gil="hold"), run_of([], gil="release"),
                         run_of([], gil="release", context="per-worker"),
                         run_of([], gil="release", threads=4))
        a, b, c, d = (plan.run(i) for i in range(4))
        self.assertTrue(plan.differs_only_in(a, b, ["gil"]))
        self.assertFalse(plan.differs_only_in(a, c, ["gil"]))
        self.assertTrue(plan.differs_only_in(b, c, ["transfer.context"]))
        self.assertFalse(plan.differs_only_in(b, d, ["gil"]))     # thread counts differ

    def test_launcher_is_not_a_context_switch(self):
        plan = self.plan(run_of([]), run_of([], launcher="process", context="per-worker"))
        self.assertFalse(plan.differs_only_in(plan.run(0), plan.run(1), ["transfer.context"]))


def alternating(workers=2, calls=5, length=10):
    """Workers taking turns on the host, never two calls at once (the first is a warm-up)."""
    out, t = [], 0
    for k in range(calls):
        for w in range(workers):
            out.append(rec(w, t, t + length, warmup=k == 0))
            t += length + 1
    return out


class GilCause(unittest.TestCase):
    ONE = ("calls never overlapped: one copy call in flight at a time (host-side peak 1, "
           "warm-ups included) with 2 workers")

    def findings(self, release_records, clause):
        hold = run_of(alternating(), index=0, launcher="python", gil="hold",
                      payload="threads.py")
        release = run_of(release_records, index=1, launcher="python", gil="release",
                         payload="threads.py")
        results = {"runs": [hold, release]}
        auditor = ax.Auditor(None)
        auditor.audit_report("gil", results, report_for(results, {0: [self.ONE + clause]}))
        return [f.why for f in auditor.findings]

    def test_cause_needs_the_release_run_to_overlap(self):
        named = (": the GIL held across the call serialized them: run 1, the same with gil = "
                 "release, overlapped (host-side peak 2)")
        not_shown = ("; run 1, the same with gil = release, did not overlap in every trial "
                     "either, so the held GIL is not shown to be what serialized them")
        overlapped = [rec(w, 0, 10) for w in (0, 1)] + [rec(w, 10, 20) for w in (0, 1)]
        self.assertEqual(self.findings(overlapped, named), [])
        self.assertNotEqual(self.findings(overlapped, not_shown), [])
        self.assertNotEqual(self.findings(alternating(), named), [])
        self.assertEqual(self.findings(alternating(), not_shown), [])

    def test_hold_without_a_clause(self):
        self.assertIn("gil = hold without its cause clause",
                      self.findings(alternating(), ""))


class HostActivity(unittest.TestCase):
    def activity(self, window_ns, others=1.2, busy=1.3, own=0.1, cpus=2, steal=0.0):
        return {"window_ns": window_ns, "others_cpus": others, "busy_cpus": busy,
                "own_cpus": own, "cpus": cpus, "steal_fraction": steal}

    def test_short_window_cannot_tell(self):
        holds, why = ax.shared_machine_holds(self.activity(15 * MS))
        self.assertFalse(holds)
        self.assertIn("tick resolution 2.67", why)

    def test_long_window(self):
        self.assertTrue(ax.shared_machine_holds(self.activity(2000 * MS))[0])
        self.assertFalse(ax.shared_machine_holds(self.activity(2000 * MS, busy=0.1, own=0.3))[0])

    def test_steal_needs_100_ticks(self):
        self.assertFalse(ax.shared_machine_holds(self.activity(500 * MS, others=0, steal=0.05))[0])
        self.assertTrue(ax.shared_machine_holds(self.activity(1000 * MS, others=0, steal=0.05))[0])


class Verdicts(unittest.TestCase):
    def test_expected(self):
        self.assertEqual(ax.expected_verdict([1.0], [2.0])[0], "not tested")
        self.assertEqual(ax.expected_verdict([1, 2, 3], [4, 5, 6])[0], "not testable")
        self.assertEqual(ax.expected_verdict([1, 2, 3, 3.5], [4, 5, 6])[0], "not testable")
        self.assertEqual(ax.expected_verdict([1, 2, 3, 3.5, 3.7], [4, 5, 6])[0], "slower")
        base = [55.00, 55.01, 55.02, 55.03, 55.04]
        self.assertEqual(ax.expected_verdict([x - 0.05 for x in base], base)[0], "negligible")
        self.assertEqual(ax.expected_verdict([x * 0.9 for x in base], base)[0], "slower")
        self.assertEqual(ax.expected_verdict([55.0, 55.2, 54.9, 55.1, 55.05], base)[0],
                         "no difference found")


# Every catalogue shape, and the old shapes of issue 32, with the rule id each must get.
CATALOGUE = [
    ("no measured copies", "no-copies"),
    ("calls never overlapped: one copy call in flight at a time (host-side peak 1, warm-ups "
     "included) with 2 workers", "calls-one-at-a-time"),
    ("calls never overlapped: one copy call in flight at a time (host-side peak 1, warm-ups "
     "included) with 2 workers: the GIL held across the call serialized them: run 1, the same "
     "with gil = release, overlapped (host-side peak 2)", "calls-one-at-a-time"),
    ("calls never overlapped: one copy call in flight at a time (host-side peak 1, warm-ups "
     "included) with 2 workers; gil = hold, and no run of this plan differs from it in gil "
     "alone, so no cause is named", "calls-one-at-a-time"),
    ("calls never overlapped, but they had little chance to: a call took p50 1 ms while the "
     "workers' first calls spread over 50 ms", "calls-short"),
    ("copies never overlapped on device 0: device-side peak 1 with 4 workers (warm-ups "
     "included)", "device-one-at-a-time"),
    ("on device 0 calls overlapped (host-side concurrency 3.6) but transfers did not "
     "(device-side 1.0, peak 1): calls waited 60 ms (p50, 75% of a call) before the device "
     "started, so per-copy bandwidth there measures waiting", "waiting-not-moving"),
    ("calls wait 60 ms (p50) before the device starts moving bytes: 75% of a call's p50 80 ms",
     "calls-wait"),
    ("device 0 changed hands after 50% of consecutive copies (hand-off rate 0.50, mean run "
     "length 2.0): worker 0 kept it (gap p50 2.7 us), workers 1, 2 handed it off after about "
     "one copy (gap p50 52 us), host workers return to the driver after p50 2.7 us (p90 52 us)",
     "hand-off"),
    ("on device 0 the workers that returned sooner kept it: every worker that kept it returned "
     "at least 1.5x sooner (gap p50) than every worker that handed it off",
     "returned-sooner-kept"),
    ("gil = release: the GIL was not held during the copy calls, so it did not serialize them",
     "gil-released"),
    ("device 0: transfers of 2 CUDA contexts overlapped (peak 2) but never two within one "
     "context, though a context held up to 2 workers", "per-context-in-run"),
    ("aggregate within noise of baseline (run 0) but per-copy p50 3.99x lower: each copy took "
     "longer without the bytes per second falling", "same-aggregate-slower-copies"),
    ("aggregate within noise of baseline (run 0) but per-copy p50 3.99x lower: each copy took "
     "longer without the bytes per second falling; the copies took turns on the device "
     "(hand-off rate 1.00)", "same-aggregate-slower-copies"),
    ("aggregate within noise of baseline (run 0) but per-copy p50 3.99x lower: each copy took "
     "longer without the bytes per second falling; the copies shared the device (device-side "
     "concurrency 3.9)", "same-aggregate-slower-copies"),
    ("queued: the slowest call took 110 ms (11x the median 10.1 ms): 100 ms waiting before the "
     "device started, 10 ms moving bytes (a transfer's median is 10 ms)", "slowest-call"),
    ("erratic: the slowest transfer took 100 ms (10x the median transfer 10 ms) in a call of "
     "100 ms", "slowest-call"),
    ("the slowest call took 110 ms (11x the median 10.1 ms); without device times waiting and "
     "moving bytes cannot be told apart", "slowest-call"),
    ("unequal service: Jain 0.86 over the workers' bytes per second of their own transfer time; "
     "worker 0 moved its bytes at 31% of the workers' mean rate", "unequal-service"),
    ("more threads, more bytes per second: 1.63x for 4 threads against one thread "
     "('host threads.count=1') "
     "(median of 5 trials' ratios; every trial apart: 26.67-33.33 vs 15.38-22.22 GB/s)",
     "scaling"),
    ("more threads, fewer bytes per second: 0.90x for 4 threads against one thread "
     "('host threads.count=1') "
     "(median of 3 trials' ratios; every trial apart: 49.20-49.80 vs 54.80-55.30 GB/s)",
     "scaling"),
    ("scaling 0.99x for 4 threads against one thread ('host threads.count=1'): no practical "
     "difference (under 1 %)", "scaling"),
    ("scaling 1.20x for 4 threads against one thread ('host threads.count=1'): the trials "
     "overlap (20.1-30.2 vs 19.5-25.0 GB/s): no consistent difference in 3 trials", "scaling"),
    ("shared machine: other processes kept 1.2 of 2 CPUs busy while the copies ran (xferlab "
     "0.2; +-0.02 CPUs at /proc/stat's 10 ms ticks over 2 s), the hypervisor took 0.0% of CPU "
     "time (steal): the copies may have waited for CPUs or memory bandwidth they shared",
     "shared-machine"),
    ("shared machine: other processes kept 3.1 of 8 CPUs busy while the run's workers ran "
     "(buffers prepared and copies made) (xferlab 1.0; +-0.16 CPUs at /proc/stat's 10 ms ticks "
     "over 1 s), the hypervisor took 2.0% of CPU time (steal); the other MPI ranks on this host "
     "count as other processes: the copies may have waited for CPUs or memory bandwidth they "
     "shared", "shared-machine"),
    ("unequal service: worker 3 made no measured copy (Jain 0.75 over the workers' bytes per "
     "second of their own transfer time)", "unequal-service"),
    ("calls never overlapped: one copy call in flight at a time (host-side peak 1, warm-ups "
     "included) with 2 workers; run 1, the same with gil = release, did not overlap in every "
     "trial either, so the held GIL is not shown to be what serialized them",
     "calls-one-at-a-time"),
]

CATALOGUE_SUMMARY = [
    ("serialized devices, gap after a copy vs hand-off: run 0 (host) gap p50 2.63 us, hand-off "
     "rate 0.46; run 1 (host) gap p50 2.67 us, hand-off rate 0.50", "gap-vs-handoff"),
    ("runs 0, 2 (threads.between = none, gap p50 2.7 us) kept the device (hand-off rate 0.05) "
     "and runs 1, 3 (threads.between = spin:50us, gap p50 52 us) handed it over (hand-off rate "
     "1.00): "
     "with nothing else changed, the gap after a copy decides who gets the device next",
     "gap-decides"),
    ("with transfer.context = primary the threads never overlapped on a device (runs 0, 2), "
     "with per-worker contexts they did (runs 1, 3): the serialization is per context",
     "context-switch"),
    ("3 warm-up copies overlapped the measurement window (runs 0): the aggregate counts the "
     "bytes they moved inside it", "warmups-in-window"),
    ("3 warm-up copies overlapped the measurement window (runs 0): the aggregate counts the "
     "bytes they moved inside it; on run 0, whose devices never had two transfers at once, the "
     "workers took turns, so one worker's warm-up ran inside another's measured copies",
     "warmups-in-window"),
    ("slower than the baseline of its sweep point: 'staged' 0.90x", "verdicts"),
    ("not testable with these trial counts (the test cannot reach p < 0.05; run with --trials "
     "5): 'staged' 0.90x, 'python staged' 0.91x", "verdicts"),
    ("a difference from the baseline of its sweep point under 1 % (negligible): 'staged' 1.00x",
     "verdicts"),
    ("input: results.json (schema 1)", "bookkeeping"),
    ("per-copy bandwidth understates run 1: same aggregate, slower copies",
     "same-aggregate-slower-copies"),
    ("baseline: run 0 (host)", "bookkeeping"),
    ("highest aggregate: run 1 (four workers) 4.96 GB/s; lowest: run 0 (one worker) 4.95 GB/s "
     "(1.00x apart)", "bookkeeping"),
    ("one trial per run: drift between runs is unknown, so no run is called faster or slower; "
     "run with --trials 5 (or scenario.trials) to judge", "bookkeeping"),
]

OLD = [
    ("host-side concurrency 2.0 but device-side 1.0: calls overlap, transfers do not; per-copy "
     "bandwidth measures waiting", "waiting-not-moving", 1),
    ("calls serialized: never two copies in flight (host-side peak 1) with 4 workers: a lock "
     "held across the call; not the GIL, which launcher host never takes",
     "calls-one-at-a-time", 2),
    ("aggregate within noise of baseline (run 0) but per-copy p50 3.99x lower: copies take "
     "longer without moving fewer bytes overall, a hand-off effect",
     "same-aggregate-slower-copies", 3),
    ("erratic: the slowest copy took 110 ms (11x the median 10.1 ms); the aggregate includes "
     "it and the noise bounds of this run widen with it", "slowest-call", 4),
    ("scaling 1.50x for 4 threads (vs run 0): within noise of one thread, no gain from more "
     "threads", "scaling", 5),
    ("scaling 0.99x for 4 threads (vs run 0): more threads move fewer bytes per second than "
     "one", "scaling", 6),
    ("unfair: Jain 0.75, worker 3 got 50% of the bandwidth (a fair share is 25%)",
     "unequal-service", 7),
    ("copies never overlapped because they are short: a copy took p50 10 ms while the workers' "
     "first calls spread over 51 ms, so there was nothing to serialize", "calls-short", 13),
    ("the GIL is released during each copy (gil = release): it does not serialize the copies; "
     "it only lengthens the gap before the next call", "gil-released", 11),
    ("on device 0 the workers that returned sooner kept it: every worker that kept it returned "
     "faster than every worker that handed it off", "returned-sooner-kept", 15),
]

OLD_SUMMARY = [
    ("1 warm-up copy ran inside the measurement window (runs 0: workers took turns, so one "
     "worker's warm-up overlapped another's measured copies); the aggregate counts the bytes "
     "they moved", "warmups-in-window", 9),
    ("threads sharing the primary context never overlapped on a device (runs 0) while workers "
     "with their own context did (runs 1): the serialization is per context",
     "context-switch", 10),
    ("every run whose workers returned within 2.63 us kept the device, every run whose workers "
     "returned after 2.67 us or more handed it over: the gap decides who gets the device next",
     "gap-decides", 12),
    ("per-copy bandwidth understates run 1: same aggregate, slower copies (hand-off)",
     "same-aggregate-slower-copies", 3),
]


class Classification(unittest.TestCase):
    def test_every_catalogue_shape(self):
        for sentence, rule in CATALOGUE:
            shape, _ = ax.classify(sentence, ax.RUN_SHAPES + ax.TABLE_SHAPES)
            self.assertIsNotNone(shape, sentence)
            self.assertEqual((shape.rule, shape.old), (rule, False), sentence)
        for sentence, rule in CATALOGUE_SUMMARY:
            shape, _ = ax.classify(sentence, ax.SUMMARY_SHAPES)
            self.assertIsNotNone(shape, sentence)
            self.assertEqual((shape.rule, shape.old), (rule, False), sentence)

    def test_every_new_shape_has_an_example(self):
        examples = [s for s, _ in CATALOGUE + CATALOGUE_SUMMARY]
        for shape in ax.RUN_SHAPES + ax.SUMMARY_SHAPES + ax.TABLE_SHAPES:
            if not shape.old and shape.rule != "bookkeeping":
                self.assertTrue(any(shape.regex.match(s) for s in examples), shape.pattern)

    def test_old_shapes(self):
        for sentence, rule, item in OLD:
            shape, _ = ax.classify(sentence, ax.RUN_SHAPES)
            self.assertEqual((shape.rule, shape.old, shape.item), (rule, True, item), sentence)
        for sentence, rule, item in OLD_SUMMARY:
            shape, _ = ax.classify(sentence, ax.SUMMARY_SHAPES)
            self.assertEqual((shape.rule, shape.old, shape.item), (rule, True, item), sentence)

    def test_unknown(self):
        self.assertEqual(ax.classify("the copies were slow", ax.RUN_SHAPES), (None, None))

    def test_table_lines_joined(self):
        table = ("Run 3: host (host, host backend, 1 thread, ok)\n"
                 "  shared machine: other processes kept 1.2 of 2 CPUs busy while the copies\n"
                 "    ran (xferlab 0.1)\n"
                 "  why: no measured copies\n")
        self.assertEqual(ax.table_sentences(table), [
            ([3], "shared machine: other processes kept 1.2 of 2 CPUs busy while the copies "
                  "ran (xferlab 0.1)")])


def load_fixture(name):
    return ax.load_results(os.path.join(FIXTURES, f"{name}.results.json"))


def report_for(results, runs=None, summary=(), verdicts=(), baselines=None):
    """A stand-in for `xferlab report --format json`: the sentences given, the plan's runs,
    and trial groups by label (verdicts: (label, baseline label, text))."""
    report_runs = []
    for r in results["runs"]:
        analysis = {"explanations": (runs or {}).get(r["index"], [])}
        base = (baselines or {}).get(r["index"])
        if base is not None:
            analysis["vs_baseline"] = {"baseline_run": base}
        report_runs.append({"index": r["index"], "analysis": analysis})
    labels = []
    for r in results["runs"]:
        if r["label"] not in labels:
            labels.append(r["label"])
    groups = [{"label": label, "runs": [r["index"] for r in results["runs"]
                                        if r["label"] == label], "vs_baseline": None}
              for label in labels]
    for label, base, text in verdicts:
        group = groups[labels.index(label)]
        group["vs_baseline"] = {"baseline_group": labels.index(base), "verdict": text}
    return {"runs": report_runs, "summary": list(summary), "trial_groups": groups}


def audit(name, runs=None, summary=(), verdicts=(), table="", baselines=None):
    results = load_fixture(name)
    auditor = ax.Auditor(None)
    auditor.audit_report(name, results, report_for(results, runs, summary, verdicts, baselines),
                         table)
    return auditor.findings


# The sentences the catalogue says for each fixture built to make them fire.
MUST_PASS = {
    "waiting-not-moving": dict(runs={0: [
        "on device 0 calls overlapped (host-side concurrency 3.6) but transfers did not "
        "(device-side 1.0, peak 1): calls waited 60 ms (p50, 75% of a call) before the device "
        "started, so per-copy bandwidth there measures waiting",
        "copies never overlapped on device 0: device-side peak 1 with 4 workers (warm-ups "
        "included)",
        "device 0 changed hands after 100% of consecutive copies (hand-off rate 1.00, mean run "
        "length 1.0): workers 0, 1, 2, 3 handed it off after about one copy (gap p50 5 us), "
        "host workers return to the driver after p50 5 us (p90 5 us)"]},
        summary=["3 warm-up copies overlapped the measurement window (runs 0): the aggregate "
                 "counts the bytes they moved inside it; on run 0, whose devices never had two "
                 "transfers at once, the workers took turns, so one worker's warm-up ran inside "
                 "another's measured copies"]),
    "gil-switch": dict(runs={0: [
        "calls never overlapped: one copy call in flight at a time (host-side peak 1, warm-ups "
        "included) with 2 workers: the GIL held across the call serialized them: run 1, the "
        "same with gil = release, overlapped (host-side peak 2)"]}),
    "gil-hold-alone": dict(runs={0: [
        "calls never overlapped: one copy call in flight at a time (host-side peak 1, warm-ups "
        "included) with 2 workers; gil = hold, and no run of this plan differs from it in gil "
        "alone, so no cause is named"]}),
    "calls-short": dict(runs={0: [
        "calls never overlapped, but they had little chance to: a call took p50 1 ms while the "
        "workers' first calls spread over 50 ms"]}),
    "same-aggregate-took-turns": dict(runs={1: [
        "aggregate within noise of baseline (run 0) but per-copy p50 4.00x lower: each copy "
        "took longer without the bytes per second falling; the copies took turns on the device "
        "(hand-off rate 1.00)"]}),
    "slowest-queued": dict(runs={0: [
        "queued: the slowest call took 110 ms (11x the median 10.1 ms): 100 ms waiting before "
        "the device started, 10 ms moving bytes (a transfer's median is 10 ms)"]}),
    "slowest-erratic": dict(runs={0: [
        "erratic: the slowest transfer took 100 ms (10x the median transfer 10 ms) in a call of "
        "100 ms"]}),
    "scaling-every-trial-apart": dict(runs={1: [
        "more threads, more bytes per second: 1.63x for 4 threads against one thread "
        "('host threads.count=1') "
        "(median of 5 trials' ratios; every trial apart: 26.67-33.33 vs 15.38-22.22 GB/s)"], 3: [
        "more threads, more bytes per second: 1.63x for 4 threads against one thread "
        "('host threads.count=1') "
        "(median of 5 trials' ratios; every trial apart: 26.67-33.33 vs 15.38-22.22 GB/s)"]}),
    "scaling-under-one-percent": dict(runs={3: [
        "scaling 0.99x for 4 threads against one thread ('host threads.count=1'): no practical "
        "difference (under 1 %)"]}),
    "scaling-fewer": dict(runs={5: [
        "more threads, fewer bytes per second: 0.90x for 4 threads against one thread "
        "('host threads.count=1') "
        "(median of 3 trials' ratios; every trial apart: 49.20-49.80 vs 54.80-55.30 GB/s)"]}),
    "unequal-service": dict(runs={0: [
        "unequal service: Jain 0.86 over the workers' bytes per second of their own transfer "
        "time; worker 0 moved its bytes at 31% of the workers' mean rate"]}),
    "host-activity-busy": dict(table=(
        "Run 0: host (host, host backend, 1 thread, ok)\n"
        "  shared machine: other processes kept 1.2 of 2 CPUs busy while the copies ran\n"
        "    (xferlab 0.2; +-0.02 CPUs at /proc/stat's 10 ms ticks over 2 s), the hypervisor\n"
        "    took 0.0% of CPU time (steal): the copies may have waited for CPUs or memory\n"
        "    bandwidth they shared\n")),
    "warmups-took-turns": dict(summary=[
        "1 warm-up copy overlapped the measurement window (runs 0): the aggregate counts the "
        "bytes they moved inside it; on run 0, whose devices never had two transfers at once, "
        "the workers took turns, so one worker's warm-up ran inside another's measured "
        "copies"]),
    "context-switch": dict(summary=[
        "with transfer.context = primary the threads never overlapped on a device (runs 0, 2), "
        "with per-worker contexts they did (runs 1, 3): the serialization is per context"]),
    "gil-released": dict(runs={0: [
        "gil = release: the GIL was not held during the copy calls, so it did not serialize "
        "them"]}),
    "gil-released-batch": dict(runs={0: [
        "gil = release: the GIL was not held during the copy calls, so it did not serialize "
        "them"]}),
    "gap-no-switch": dict(summary=[
        "serialized devices, gap after a copy vs hand-off: run 0 (host) gap p50 2.63 us, "
        "hand-off rate 0.46; run 1 (host) gap p50 2.67 us, hand-off rate 0.50"]),
    "gap-decides": dict(summary=[
        "runs 0, 2 (threads.between = none, gap p50 2.7 us) kept the device (hand-off rate "
        "0.05) and runs 1, 3 (threads.between = spin:50us, gap p50 52 us) handed it over "
        "(hand-off rate 1.00): with nothing else changed, the gap after a copy decides who gets "
        "the device next"]),
    "handoff-kept-handed": dict(runs={0: [
        "device 0 changed hands after 50% of consecutive copies (hand-off rate 0.50, mean run "
        "length 2.0): worker 0 kept it (gap p50 2.7 us), workers 1, 2 handed it off after about "
        "one copy (gap p50 52 us), host workers return to the driver after p50 2.7 us (p90 52 "
        "us)",
        "on device 0 the workers that returned sooner kept it: every worker that kept it "
        "returned at least 1.5x sooner (gap p50) than every worker that handed it off"]}),
    "handoff-no-margin": dict(runs={0: [
        "device 0 changed hands after 44% of consecutive copies (hand-off rate 0.44, mean run "
        "length 2.0): worker 0 kept it (gap p50 10.2 us), host workers return to the driver "
        "after p50 10.3 us (p90 10.4 us)"]}),
    "verdict-one-trial": dict(verdicts=[
        ("staged", "pinned", "0.82x, not tested (1 trial: between-run drift unknown; run with "
                             "--trials 5)")]),
    "verdict-3v3": dict(verdicts=[
        ("staged", "pinned", "0.90x, not testable with 3 vs 3 trials (the smallest p they can "
                             "give is 0.1; run with --trials 5)")]),
    "verdict-negligible": dict(verdicts=[
        ("staged", "pinned", "1.00x, negligible (under 1 %; Mann-Whitney p=0.00794)")]),
    "verdict-slower": dict(verdicts=[
        ("staged", "pinned", "0.90x, slower (95% CI 0.89x-0.90x, Mann-Whitney p=0.00794, 5 vs "
                             "5 trials)")]),
}

# What the old rules printed for fixtures built so that the catalogue stays silent (or words
# it otherwise): each must give a finding of its item.
MUST_FAIL = [
    ("two-devices-one-worker-each", 0, "host-side concurrency 2.0 but device-side 1.0: calls "
     "overlap, transfers do not; per-copy bandwidth measures waiting", 1),
    ("warmup-in-flight", 0, "calls serialized: never two copies in flight (host-side peak 1) "
     "with 4 workers: a lock held across the call; not the GIL, which launcher host never "
     "takes", 2),
    ("scaling-every-trial-apart", 1, "aggregate within noise of baseline (run 0) but per-copy "
     "p50 2.67x lower: copies take longer without moving fewer bytes overall, a hand-off "
     "effect", 3),
    ("slowest-queued", 0, "erratic: the slowest copy took 110 ms (11x the median 10.1 ms); the "
     "aggregate includes it and the noise bounds of this run widen with it", 4),
    ("scaling-every-trial-apart", 1, "scaling 1.50x for 4 threads (vs run 0): within noise of "
     "one thread, no gain from more threads", 5),
    ("scaling-one-trial", 1, "scaling 0.99x for 4 threads (vs run 0): more threads move fewer "
     "bytes per second than one", 6),
    ("scaling-under-one-percent", 5, "scaling 0.99x for 4 threads (vs run 0): more threads "
     "move fewer bytes per second than one", 6),
    ("equal-service-staggered", 0, "unfair: Jain 0.75, worker 3 got 50% of the bandwidth (a "
     "fair share is 25%)", 7),
    ("gil-released-batch", 0, "the GIL is released during each copy (gil = release): it does "
     "not serialize the copies; it only lengthens the gap before the next call", 11),
    ("gil-hold-alone", 0, "copies never overlapped because they are short: a copy took p50 10 "
     "ms while the workers' first calls spread over 51 ms, so there was nothing to serialize",
     13),
    ("handoff-no-margin", 0, "device 0 changed hands after 44% of consecutive copies (hand-off "
     "rate 0.44, mean run length 2.0): worker 0 kept it (gap p50 10.2 us), worker 1 handed it "
     "off after about one copy (gap p50 10.4 us), host workers return to the driver after p50 "
     "10.3 us (p90 10.4 us)", 15),
    ("handoff-no-margin", 0, "on device 0 the workers that returned sooner kept it: every "
     "worker that kept it returned faster than every worker that handed it off", 15),
]

MUST_FAIL_SUMMARY = [
    ("two-devices-one-worker-each", "1 warm-up copy ran inside the measurement window (runs 0: "
     "workers took turns, so one worker's warm-up overlapped another's measured copies); the "
     "aggregate counts the bytes they moved", 9),
    ("process-not-context", "threads sharing the primary context never overlapped on a device "
     "(runs 0) while workers with their own context did (runs 1): the serialization is per "
     "context", 10),
    ("gap-no-switch", "every run whose workers returned within 2.63 us kept the device, every "
     "run whose workers returned after 2.67 us or more handed it over: the gap decides who gets "
     "the device next", 12),
]

MUST_FAIL_VERDICTS = [
    ("verdict-one-trial", "0.82x, no difference found (1 trial: between-run drift unknown; run "
     "with --trials 5)"),
    ("verdict-3v3", "0.90x, no difference found (no 95% CI below 4 trials a side, "
     "Mann-Whitney p=0.1, 3 vs 3 trials)"),
    ("verdict-negligible", "1.00x, slower (95% CI 1.00x-1.00x, Mann-Whitney p=0.00794, 5 vs 5 "
     "trials)"),
]


class Fixtures(unittest.TestCase):
    def test_catalogue_sentences_pass(self):
        for name, said in MUST_PASS.items():
            with self.subTest(fixture=name):
                findings = audit(name, **said)
                self.assertEqual([f.line() for f in findings], [])

    def test_old_sentences_fail(self):
        for name, run, sentence, item in MUST_FAIL:
            with self.subTest(fixture=name, item=item):
                findings = audit(name, runs={run: [sentence]}, baselines={run: 0})
                self.assertIn(item, [f.item for f in findings], sentence)

    def test_old_summary_fails(self):
        for name, sentence, item in MUST_FAIL_SUMMARY:
            with self.subTest(fixture=name, item=item):
                self.assertIn(item, [f.item for f in audit(name, summary=[sentence])])

    def test_old_verdicts_fail(self):
        for name, text in MUST_FAIL_VERDICTS:
            with self.subTest(fixture=name):
                findings = audit(name, verdicts=[("staged", "pinned", text)])
                self.assertIn(14, [f.item for f in findings])

    def test_old_short_window_fails(self):
        table = ("Run 0: host (host, host backend, 1 thread, ok)\n"
                 "  shared machine: other processes kept 1.2 of 2 CPUs busy while the copies "
                 "ran (xferlab 0.1), the hypervisor took 0.0% of CPU time (steal): the copies "
                 "may have waited for CPUs or memory bandwidth they shared\n")
        self.assertIn(8, [f.item for f in audit("host-activity-short-window", table=table)])

    def test_wrong_number_is_a_finding(self):
        findings = audit("slowest-erratic", runs={0: [
            "erratic: the slowest transfer took 120 ms (12x the median transfer 10 ms) in a call "
            "of 120 ms"]})
        self.assertTrue(any("printed 120 ms" in f.why for f in findings))

    def test_mechanism_clause_needs_its_numbers(self):
        # Four threads side by side on the host backend: no device, no turns to take.
        findings = audit("scaling-every-trial-apart", runs={1: [
            "aggregate within noise of baseline (run 0) but per-copy p50 2.67x lower: each copy "
            "took longer without the bytes per second falling; the copies took turns on the "
            "device (hand-off rate 1.00)"]})
        self.assertIn(3, [f.item for f in findings])

    def test_expected_json_covers_every_fixture(self):
        with open(os.path.join(FIXTURES, "expected.json"), encoding="utf-8") as f:
            expected = json.load(f)
        names = sorted(n[: -len(".results.json")] for n in os.listdir(FIXTURES)
                       if n.endswith(".results.json"))
        self.assertEqual(sorted(expected), names)
        self.assertEqual(sorted({e["item"] for e in expected.values()}), list(range(1, 16)))


if __name__ == "__main__":
    unittest.main()
