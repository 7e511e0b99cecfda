"""Unit tests of the explanations audit (audit_explanations.py and its modules, issue 44): its
statistics and recomputations on tiny hand-built records, the constants parser, the reading of
rendered reports, each fixture of tests/fixtures/explanations rendered by xferlab and audited
against expected.json, and errors planted in real rendered reports, each of which the audit must
catch while the report as rendered passes.

Run: python3 -m unittest -v test_audit_explanations (from tests/python). The rendering tests
need the xferlab binary: $XFERLAB, else build/xferlab of this checkout. Standard library only.
"""

import functools
import json
import os
import unittest

import audit_explanations as ax
import audit_report as rep
from audit_catalogue import CatalogueError, classify, load_constants, parse_constants
from audit_facts import Plan, RunFacts
from audit_findings import Found, hold, printed_interval
from audit_rules import derive_run
from audit_stats import (mann_whitney_p, mean_concurrency, peak, percentile, shift_interval,
                         smallest_p, standard_error, noise_bound, within)

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
FIXTURES = os.path.join(ROOT, "tests", "fixtures", "explanations")
# A real report to plant errors in: isolate-gil on a 2-GPU H200 host (tests/fixtures/measured).
REVIEW = os.path.join(ROOT, "tests", "fixtures", "measured",
                      "h200x2-review.isolate-gil-1gpu-256MiB.results.json.xz")
MS = 1_000_000
C = load_constants()


def xferlab():
    path = os.environ.get("XFERLAB") or os.path.join(ROOT, "build", "xferlab")
    if not os.access(path, os.X_OK):
        raise AssertionError(f"no xferlab binary at {path}: build it, or set XFERLAB")
    return path


@functools.lru_cache(maxsize=None)
def rendered(path):
    texts, error = ax.render_all(xferlab(), path)
    if error:
        raise AssertionError(error)
    return texts


def fixture(name):
    return os.path.join(FIXTURES, f"{name}.results.json")


def rec(worker, hs, he, ds=-1, de=-1, device=-1, warmup=False, size=100_000_000, context=0,
        pid=1):
    return {"worker": worker, "host_start_ns": hs, "host_end_ns": he, "device_start_ns": ds,
            "device_end_ns": de, "device": device, "warmup": warmup, "size_bytes": size,
            "context": context, "pid": pid}


def run_of(records, index=0, threads=2, launcher="host", label=None, trial=1, **settings):
    key = json.dumps({"launcher": launcher, "gil": settings.get("gil", "release"),
                      "transfer": {"context": settings.get("context", "primary")},
                      "threads": {"between": settings.get("between", "none")}})
    return {"index": index, "label": label or f"run {index}", "launcher": launcher,
            "threads": threads, "status": "ok", "trial": trial, "scaling_key": key,
            "settings": dict(settings, launcher=launcher), "records": records}


def facts(records, **kw):
    return RunFacts(run_of(records, **kw), 0)


def plan_of(*runs):
    return Plan({"runs": [dict(r, index=i) for i, r in enumerate(runs)]}, C)


def serial(order, length=10, gap=1, device=0, warmups=()):
    """Calls one after another on one device, each transfer inside its call."""
    out, t = [], 0
    for k, w in enumerate(order):
        out.append(rec(w, t, t + length, t + 1, t + length - 1, device=device,
                       warmup=k in warmups))
        t += length + gap
    return out


# ------------------------------------------------------------------------------------------
# Statistics and printed numbers

class Statistics(unittest.TestCase):
    def test_percentile_type7(self):
        xs = list(range(1, 11))
        self.assertAlmostEqual(percentile(xs, 0.1), 1.9)
        self.assertAlmostEqual(percentile(xs, 0.5), 5.5)
        self.assertAlmostEqual(percentile(xs, 0.9), 9.1)

    def test_peak_touching_intervals_count_once(self):
        self.assertEqual(peak([(0, 10), (10, 20), (20, 30)]), 1)
        self.assertEqual(peak([(0, 10), (5, 20), (6, 7)]), 3)
        self.assertEqual(peak([(5, 5), (0, 10)]), 1)          # an empty interval is never open

    def test_mean_concurrency(self):
        self.assertAlmostEqual(mean_concurrency([(0, 10), (10, 20)]), 1.0)
        self.assertAlmostEqual(mean_concurrency([(0, 10), (0, 10)]), 2.0)

    def test_mann_whitney_exact(self):
        self.assertAlmostEqual(mann_whitney_p([1, 2, 3, 4, 5], [6, 7, 8, 9, 10]), 2 / 252)
        self.assertAlmostEqual(mann_whitney_p([1, 2, 3], [4, 5, 6]), 0.1)
        self.assertAlmostEqual(mann_whitney_p([1, 2, 4], [3, 5, 6]), 0.2)
        self.assertAlmostEqual(mann_whitney_p([1, 3, 5], [2, 4, 6]), 0.7)

    def test_smallest_p(self):
        self.assertAlmostEqual(smallest_p(3, 3), 0.1)
        self.assertAlmostEqual(round(smallest_p(4, 4), 3), 0.029)
        self.assertEqual(smallest_p(1, 1), 1.0)

    def test_shift_interval_excludes_zero_when_the_test_rejects(self):
        # 5 vs 5: P(U <= 2) = 4/252 <= 0.025 < P(U <= 3) = 7/252, so k = 3: the 3rd smallest and
        # the 3rd largest of the 25 differences (1, 2, 2, 3, ..., 8, 8, 9).
        low, high = shift_interval([6, 7, 8, 9, 10], [1, 2, 3, 4, 5], 0.95)
        self.assertEqual((low, high), (2, 8))
        self.assertIsNone(shift_interval([1, 2, 3], [4, 5, 6], 0.95))

    def test_noise_rule(self):
        # docs: 8 copies alternating 0.9 and 1.1 a side give a bound of 0.107
        se = standard_error(0.107, 8, False)
        bound = noise_bound(se, se)
        self.assertAlmostEqual(bound, 0.107, places=3)
        self.assertTrue(within(1.05, bound))
        self.assertFalse(within(1.12, bound))


class PrintedNumbers(unittest.TestCase):
    def test_duration_three_significant_digits(self):
        low, high = printed_interval("2.44 us", "duration")
        self.assertAlmostEqual(low, 2435)
        self.assertAlmostEqual(high, 2445)
        self.assertEqual(printed_interval("479 ns", "duration"), (478.5, 479.5))
        low, high = printed_interval("39 ms", "duration")      # {:.3g} drops the zero of 39.0
        self.assertAlmostEqual(high - low, 0.1e6)

    def test_fixed_decimals(self):
        low, high = printed_interval("6.7%", "percent")
        self.assertAlmostEqual(low, 0.0665)
        self.assertAlmostEqual(high, 0.0675)
        self.assertEqual(printed_interval("0.71", "f2"), (0.705, 0.715))
        self.assertEqual(printed_interval("27x", "times"), (26.5, 27.5))

    def test_a_range_is_no_runs_own_figure(self):
        # A line lists runs only under their own words: "0.07 to 0.21" is no run's sentence,
        # even where the run's 0.14 lies between its ends.
        found = Found("hand-off").say("rate {rate}").figure("rate", 0.14, "f2")
        self.assertTrue(hold("rate 0.07 to 0.21", found).matched)
        self.assertNotEqual(hold("rate 0.07 to 0.21", found).problems, [])
        self.assertEqual(hold("rate 0.14", found).problems, [])
        self.assertNotEqual(hold("rate 0.15", found).problems, [])


# ------------------------------------------------------------------------------------------
# The catalogue's constants

TABLE = """### The catalogue's constants

| name | value | meaning |
| --- | --- | --- |
| `wait_fraction` | 0.25 | a pre-device wait p50 that is waiting |
| `min_gaps` | 5 | gaps per worker |

### How the concise report lists findings
| `after_the_section` | 9 | not read |
"""


class Constants(unittest.TestCase):
    def test_reads_the_table_of_its_section(self):
        c = parse_constants(TABLE, needed=("wait_fraction", "min_gaps"))
        self.assertEqual(c.wait_fraction, 0.25)
        self.assertEqual(c.min_gaps, 5)
        with self.assertRaises(CatalogueError):
            c.after_the_section     # a row after the section is not a constant

    def test_a_missing_name_fails_loudly(self):
        with self.assertRaisesRegex(CatalogueError, "`idle_share`"):
            parse_constants(TABLE, needed=("wait_fraction", "idle_share"))

    def test_a_value_that_is_not_a_number_fails(self):
        with self.assertRaisesRegex(CatalogueError, "not a number"):
            parse_constants(TABLE.replace("| 0.25 |", "| a quarter |"), needed=())

    def test_without_the_section(self):
        with self.assertRaisesRegex(CatalogueError, "no '### The catalogue's constants'"):
            parse_constants("# nothing here\n", needed=())

    def test_the_docs_give_every_constant_the_audit_applies(self):
        self.assertEqual(C.wait_fraction, 0.25)
        self.assertEqual(C.sign_level, 0.05)
        self.assertEqual(C.min_cause_trials, 3)
        self.assertEqual(C.fall_bound, 0.05)
        self.assertEqual(C.unequal_jain, 0.9)


# ------------------------------------------------------------------------------------------
# Recomputations on tiny records

class RunQuantities(unittest.TestCase):
    def test_peak_counts_warmups_in_flight(self):
        # Worker 0's measured calls run one at a time; worker 1's warm-up is still running.
        r = facts([rec(0, 0, 10, warmup=True), rec(1, 0, 50, warmup=True),
                   rec(0, 10, 20), rec(0, 20, 30), rec(1, 50, 60), rec(1, 60, 70)])
        self.assertEqual(r.window, (10, 70))
        self.assertEqual(r.host_peak_in_flight, 2)

    def test_idle_fraction_of_the_window(self):
        r = facts([rec(0, 0, 10), rec(0, 10, 20), rec(1, 60, 70), rec(1, 70, 100)])
        self.assertAlmostEqual(r.idle_fraction, 0.4)       # 40 of 100 ns without a call
        self.assertEqual(r.start_spread, 60)

    def test_wait_busy_share(self):
        # Worker 1's call waits 0..20 while worker 0's transfer is on the device for 0..10 only.
        r = facts([rec(0, 0, 10, 0, 10, device=0), rec(1, 0, 30, 20, 30, device=0)])
        self.assertAlmostEqual(r.devices[0].wait_busy, 10 / 20)
        self.assertEqual(r.devices[0].peak_in_flight, 1)
        self.assertEqual(r.devices[0].workers, 2)

    def test_handoff_sequence_and_run_lengths(self):
        r = facts(serial([0, 0, 1, 1, 0, 0, 0, 1, 0, 0]))
        h = r.handoffs[0]
        self.assertAlmostEqual(h.rate, 4 / 9)
        self.assertAlmostEqual(h.mean_run_length, 10 / 5)
        self.assertEqual(r.run_length(0, 0), (7 / 3, 7))
        self.assertEqual(r.run_length(0, 1), (3 / 2, 3))
        self.assertTrue(r.serialized(0))

    def test_warmup_before_the_window_is_not_in_the_sequence(self):
        r = facts(serial([1, 0, 1, 0, 1], warmups={0}))
        self.assertEqual(r.handoffs[0].rate, 1.0)
        self.assertEqual(sum(c for c, _ in r.handoffs[0].runs.values()), 4)

    def test_gaps_before_measured_calls(self):
        r = facts([rec(0, 0, 10, warmup=True), rec(0, 13, 20), rec(0, 25, 30), rec(1, 0, 5)])
        self.assertEqual(r.gaps_by_worker[0], [3, 5])
        self.assertNotIn(1, r.gaps_by_worker)

    def test_service_without_the_slowest_call(self):
        # Equal service but for one slow call of worker 1.
        records = [rec(0, 0, 10), rec(0, 10, 20), rec(0, 20, 30),
                   rec(1, 0, 10), rec(1, 10, 200), rec(1, 200, 210)]
        r = facts(records)
        self.assertLess(r.service_jain, C.unequal_jain)
        self.assertAlmostEqual(r.service_jain_without_slowest, 1.0)
        self.assertFalse(r.unequal(C.unequal_jain))
        self.assertEqual(r.least_served, 1)

    def test_aggregate_counts_warmup_bytes_inside_the_window(self):
        r = facts([rec(0, 0, 10, warmup=True, size=100), rec(0, 10, 20, size=100),
                   rec(1, 5, 15, warmup=True, size=100)])
        self.assertAlmostEqual(r.aggregate, 150 / (10 / 1e9))
        self.assertEqual(r.warmups_in_window, 1)

    def test_gil_of_launchers(self):
        self.assertEqual(facts([], launcher="python", gil="hold", payload="x.py").gil, "hold")
        self.assertIsNone(facts([], launcher="process", gil="hold").gil)     # no payload
        self.assertIsNone(facts([], launcher="host").gil)


class Rules(unittest.TestCase):
    def ids(self, plan, index):
        return [f.id for f in derive_run(plan, plan.runs[index])]

    def test_switch_is_one_key_of_the_same_trial(self):
        plan = plan_of(run_of([], gil="hold"), run_of([], gil="release"),
                       run_of([], gil="release", context="per-worker"),
                       run_of([], gil="release", trial=2))
        a = plan.runs[0]
        self.assertEqual([o.index for o in plan.switched(a, "gil")], [1])
        self.assertTrue(plan.differ_only_in(plan.runs[1], plan.runs[2], "transfer.context"))

    def test_gil_cause_needs_the_release_run_to_overlap(self):
        hold_run = run_of(serial([0, 1, 0, 1, 0, 1]), launcher="python", gil="hold",
                          payload="t.py", label="hold")
        overlapped = [rec(w, 0, 10) for w in (0, 1)] + [rec(w, 10, 20) for w in (0, 1)]
        named = plan_of(hold_run, run_of(overlapped, launcher="python", payload="t.py",
                                         label="release"))
        text = derive_run(named, named.runs[0])[0].text()
        self.assertIn("the GIL held across the call serialized them: 'release', the same with gil "
                      "= release, overlapped (host-side peak 2); from one trial only (a cause "
                      "needs 3 trials)", text)
        alike = plan_of(hold_run, run_of(serial([0, 1, 0, 1]), launcher="python",
                                         payload="t.py", label="release"))
        self.assertIn("did not overlap in every trial either",
                      derive_run(alike, alike.runs[0])[0].text())

    def scaling_plan(self, ones, fours):
        runs = []
        for trial, (one, four) in enumerate(zip(ones, fours), start=1):
            for n, window in ((1, one), (4, four)):
                records = [rec(w, 0, window) for w in range(n)]
                runs.append(run_of(records, threads=n, label=f"n={n}", trial=trial))
        return plan_of(*runs)

    def scaling_kind(self, ones, fours):
        plan = self.scaling_plan(ones, fours)
        return [f.id for f in derive_run(plan, plan.runs[1]) if f.rule == "scaling"]

    def test_scaling_paired_by_trial(self):
        # Four threads in 10 ns move 4x the bytes of one thread in 10 ns: ratio 4 per trial.
        self.assertEqual(self.scaling_kind([10], [10]), [])
        # A direction needs the sign test of the paired trials below 5 %: six all one way.
        self.assertEqual(self.scaling_kind([10, 10], [10, 10]), ["scaling/not-significant"])
        self.assertEqual(self.scaling_kind([10, 20, 40, 10, 20], [10, 20, 40, 10, 20]),
                         ["scaling/not-significant"])
        self.assertEqual(self.scaling_kind([10, 20, 40, 10, 20, 40], [10, 20, 40, 10, 20, 40]),
                         ["scaling/more"])
        self.assertEqual(self.scaling_kind([10, 10, 10], [30, 60, 50]), ["scaling/both-ways"])
        self.assertEqual(self.scaling_kind([10] * 6, [50, 60, 70, 50, 60, 70]), ["scaling/fewer"])


# ------------------------------------------------------------------------------------------
# Reading rendered text

CONCISE = """Why (each finding once per run of the plan, with the trials that make it)
  runs 3,
    4 (as run 'a b' in 2 of 3 trials):
    why: device 0 changed hands after 21% of consecutive copies (hand-off rate 0.21, mean run
      length 4.4): workers 0, 1 kept it
  every run (every trial):
    why: gil = release: the GIL was not held during the copy calls, so it did not serialize them
    why: copies never overlapped on device 0: device-side peak 1 with 4 workers (warm-ups included)

Summary
  - baseline: run 0
    (host)
"""


class Reading(unittest.TestCase):
    def test_why_block_joins_wrapped_headers_and_sentences(self):
        listed = rep.why_block(CONCISE, [0, 3, 4], "default")
        self.assertEqual([item.runs for item in listed], [[3, 4], [0, 3, 4], [0, 3, 4]])
        self.assertEqual(listed[0].header, "runs 3, 4 (as run 'a b' in 2 of 3 trials)")
        self.assertEqual(listed[0].labels, [("a b", 2, 3)])
        self.assertEqual(listed[2].header, "every run (every trial)")  # the head before it
        self.assertTrue(listed[0].sentence.endswith(
            "(hand-off rate 0.21, mean run length 4.4): workers 0, 1 kept it"))

    def test_summary_items(self):
        self.assertEqual([s.sentence for s in rep.summary(CONCISE, "default")],
                         ["baseline: run 0 (host)"])

    def test_table_cells_by_alignment(self):
        block = ["Runs", "  #  label        status  aggregate vs baseline",
                 "  0  a long       ok      baseline",
                 "     label",
                 "  1  b            ok      1.06x (inside",
                 "                          this run's noise)"]
        rows = rep.table(block, [("#", "r"), ("label", "l"), ("status", "l"),
                                 ("aggregate vs baseline", "l")], "#")
        self.assertEqual(rows[0]["label"], "a long label")
        self.assertEqual(rows[1]["aggregate vs baseline"], "1.06x (inside this run's noise)")

    def test_classify(self):
        self.assertEqual(classify("more threads, more bytes per second: 1.5x ..."),
                         ("scaling", "more"))
        self.assertEqual(classify("run 3 (x) skipped", summary=True), ("failed-runs", None))
        self.assertEqual(classify("something else"), (None, None))


# ------------------------------------------------------------------------------------------
# The fixtures, rendered and audited

def expected():
    with open(os.path.join(FIXTURES, "expected.json"), encoding="utf-8") as f:
        return json.load(f)


class Fixtures(unittest.TestCase):
    def test_every_fixture_passes_with_its_expectations(self):
        for name, want in sorted(expected().items()):
            with self.subTest(fixture=name):
                path = fixture(name)
                problems = ax.audit_texts(name, ax.load_results(path), rendered(path), C, want)
                self.assertEqual([p.line() for p in problems], [])

    def test_an_expectation_the_report_does_not_meet_is_a_finding(self):
        path = fixture("scaling-two-trials")
        problems = ax.audit_texts("f", ax.load_results(path), rendered(path), C,
                                  {"fire": ["scaling/more"], "silent": ["scaling"]})
        self.assertEqual(sorted(p.rule for p in problems), ["scaling", "scaling/more"])

    def test_expected_json_covers_every_fixture(self):
        names = sorted(n[: -len(".results.json")] for n in os.listdir(FIXTURES)
                       if n.endswith(".results.json"))
        self.assertEqual(sorted(expected()), names)

    def test_issue_44_items_each_fire_and_stay_silent(self):
        items = {}
        for want in expected().values():
            if want.get("issue") == 44:
                entry = items.setdefault(want["item"], [set(), set()])
                entry[0].update(want["fire"])
                entry[1].update(want["silent"])
        self.assertEqual(sorted(items), [1, 2, 3, 4, 5, 6])
        for item, (fire, silent) in items.items():
            rules = {x.split("/")[0] for x in fire} & {x.split("/")[0] for x in silent}
            self.assertTrue(rules, f"item {item}: no rule that fires in one fixture and is "
                                   "silent in another")


# ------------------------------------------------------------------------------------------
# Planted errors: each must be caught, the report as rendered must pass

class Planted(unittest.TestCase):
    def audit(self, path, **views):
        texts = dict(rendered(path), **views)
        return ax.audit_texts(os.path.basename(path), ax.load_results(path), texts, C)

    def caught(self, path, view, old, new, *whys):
        text = rendered(path)[view]
        self.assertIn(old, text)
        problems = self.audit(path, **{view: text.replace(old, new, 1)})
        lines = [p.line() for p in problems]
        self.assertTrue(lines, f"nothing caught: {new!r}")
        for why in whys:
            self.assertTrue(any(why in line for line in lines), f"{why!r} not in {lines}")
        return lines

    def test_the_reports_as_rendered_pass(self):
        for path in (REVIEW, fixture("scaling-two-trials"), fixture("same-aggregate-trials")):
            with self.subTest(path=os.path.basename(path)):
                self.assertEqual([p.line() for p in self.audit(path)], [])

    def test_a_deleted_sentence(self):
        self.caught(REVIEW, "default",
                    "  run 1 (as run 'python gil=release'):\n    why: on device 0 calls overlapped (host-side concurrency 2.8) "
                    "but transfers did not (device-side\n      0.9, peak 1): calls waited 90.3 ms "
                    "(p50, 75% of a call) before the device started, another\n      transfer on "
                    "it for 99% of that wait, so per-copy bandwidth there measures waiting\n", "",
                    "run 1: waiting-not-moving", "not printed for it")

    def test_a_deleted_sentence_of_full(self):
        text = rendered(REVIEW)["full"]
        start = text.index("  why: gil = release", text.index("Run 3: "))
        end = text.index("\n", start) + 1
        lines = [p.line() for p in self.audit(REVIEW, full=text[:start] + text[end:])]
        self.assertEqual(len(lines), 1, lines)
        self.assertIn("run 3: gil-released", lines[0])
        self.assertIn("--full: run 3 makes this finding and it is not printed for it", lines[0])

    def test_a_run_listed_under_another_runs_claim(self):
        self.caught(REVIEW, "default",
                    "  run 2 (as run 'python gil=hold'):\n    why: calls never overlapped",
                    "  runs 1, 2 (as runs 'python gil=release', 'python gil=hold'):\n    why: "
                    "calls never overlapped",
                    "run 1: calls-one-at-a-time", "run 1 makes no")

    def test_kept_and_handed_off_swapped(self):
        self.caught(REVIEW, "full", "4 of 4 workers kept it, 0 handed\n",
                    "0 of 4 workers kept it, 4 handed\n", "run 0: hand-off", "its kept is 4")
        self.caught(REVIEW, "default", "4 / 0 of 4        2.48 us", "0 / 4 of 4        2.48 us",
                    "label 'host': hand-off table", "kept")

    def test_a_seldom_finding_miscounted_or_dropped(self):
        # One trial of five makes same-aggregate-slower-copies for this label: the default report
        # counts it in the Why block's last line instead of printing the trial's sentence.
        path = os.path.join(ROOT, "docs", "results", "2026-12-01-h200-cure3",
                            "staged-vs-pinned.results.json.xz")
        self.assertEqual([p.line() for p in self.audit(path)], [])
        self.caught(path, "default", "same-aggregate-slower-copies in\n    1 of 5 trials",
                    "same-aggregate-slower-copies in\n    3 of 5 trials",
                    "same-aggregate-slower-copies", "not fewer than half")
        text = rendered(path)["default"]
        start = text.index("  in fewer than half of a label's trials")
        end = text.index("\n\n", start) + 1
        lines = [p.line() for p in self.audit(path, default=text[:start] + text[end:])]
        self.assertTrue(any("same-aggregate-slower-copies" in line and "not printed for it" in line
                            for line in lines), lines)

    def test_a_watched_programs_block_read_back(self):
        # xferlab watch's block: a thread's copies, the calls' wait, the program's rate beside
        # the reference run and where its pages were, each changed, are caught; a line the
        # audit cannot place too.
        path = os.path.join(ROOT, "docs", "results", "2026-12-06-h100-watch",
                            "multiprocessing.results.json.xz")
        self.assertEqual([p.line() for p in self.audit(path)], [])
        self.caught(path, "default", "1468  1468       1    170 ms", "1468  1468       2    170 ms",
                    "worker 1: copies: 2", "its own is 1")
        self.caught(path, "default", "the calls waited 774 us in all",
                    "the calls waited 574 us in all", "waiting", "printed '574 us'")
        self.caught(path, "default", "    5.42 GB/s per copy (p50", "    5.12 GB/s per copy (p50",
                    "watched program (run 0)", "printed '5.12 GB/s'")
        self.caught(path, "default", "node 0 for 4", "node 1 for 4", "where the bytes live")
        self.caught(path, "default", "  (timed after the program ended",
                    "  a line of figures nobody checks\n  (timed after the program ended",
                    "watched program (run 0)")

    def test_a_changed_figure_in_a_sentence(self):
        self.caught(REVIEW, "full", "changed hands at rate 0.71 (", "changed hands at rate 0.81 (",
                    "run 1: hand-off", "its rate is 0.71, printed '0.81'")

    def test_a_run_listed_under_a_sentence_with_another_runs_figures(self):
        self.caught(REVIEW, "default",
                    "  run 2 (as run 'python gil=hold'):\n    why: calls never overlapped",
                    "  runs 2, 4 (as runs 'python gil=hold', 'host+gil gil=hold'):\n    why: calls "
                    "never overlapped",
                    "run 4: calls-one-at-a-time", "not what run 4 says")

    def test_a_changed_figure_in_a_table_line(self):
        self.caught(REVIEW, "default", "  1  8.40 GB/s", "  1  8.60 GB/s",
                    "run 1: bandwidth table", "its aggregate is 8.40 GB/s")
        self.caught(REVIEW, "full", "1.13x (inside this run's noise +-102%)",
                    "1.13x (outside this run's noise +-102%)", "run 2: runs table")

    def test_a_two_trial_scaling_claim(self):
        path = fixture("scaling-two-trials")
        claim = ("more threads, more bytes per second: 1.50x for 4 threads against one thread "
                 "('host threads.count=1') (median of 2 trials' ratios, each trial's above 1: "
                 "1.50x to 1.50x)")
        text = rendered(path)["default"]
        start = text.index("    why: scaling 1.50x")
        end = text.index("\n\n", start)
        planted = text[:start] + "    why: " + claim + text[end:]
        lines = [p.line() for p in self.audit(path, default=planted)]
        for run in (1, 3):
            self.assertTrue(any(f"run {run}: scaling: more threads, more bytes" in line and
                                f"not what run {run} says: its own says 'scaling 1.50x" in line
                                for line in lines), lines)

    def test_a_changed_summary_line(self):
        self.caught(REVIEW, "brief", "runs 1, 2, 3, 4\n", "runs 1, 2, 3\n",
                    "summary: noise-lists", "the summary's finding is not printed")

    def test_a_sentence_of_another_rule_in_brief(self):
        text = rendered(REVIEW)["brief"]
        why = ("\nWhy (each finding once per run of the plan, with the trials that make it)\n  run "
               "1 (as run 'python gil=release'):\n    why: gil = release: the GIL was not held "
               "during the copy calls, so it did not serialize them\n")
        lines = [p.line() for p in self.audit(REVIEW, brief=text.replace("\nSummary\n",
                                                                          why + "\nSummary\n"))]
        self.assertTrue(any("the brief report has no Why block" in line for line in lines), lines)

    def test_a_note_listed_under_another_run(self):
        path = fixture("process-skipped-note")
        self.caught(path, "default", "note (run 1): payload skipped", "note (runs 0, 1): payload "
                    "skipped", "run 0: notes", "not a note of this run")

    def test_records_merged_without_records(self):
        path = fixture("process-skipped-note")
        results = ax.load_results(path)
        results["runs"][1]["notes"][1] = results["runs"][1]["notes"][1].replace(
            "no records came back", "records merged on the shared CLOCK_MONOTONIC")
        texts = {view: text.replace("no records came back", "records merged on the shared "
                                    "CLOCK_MONOTONIC") for view, text in rendered(path).items()}
        lines = [p.line() for p in ax.audit_texts("f", results, texts, C)]
        self.assertTrue(any("says records were merged; the run has none" in line
                            for line in lines), lines)

    def test_an_error_under_another_run(self):
        path = os.path.join(ROOT, "tests", "fixtures", "plots", "failed.results.json")
        self.caught(path, "default", "\nRun 1: python gil=release", "\nRun 0: python gil=release",
                    "run 0: errors: payload", "not an error of this run",
                    "run 1: errors: payload", "the run's error is not printed")

    def test_the_catalogues_constants_decide(self):
        path = fixture("idle-window-free-start")
        with open(os.path.join(ROOT, "docs", "reading-reports.md"), encoding="utf-8") as f:
            docs = f.read()
        self.assertIn("| `idle_share` | 0.2 |", docs)
        stricter = parse_constants(docs.replace("| `idle_share` | 0.2 |", "| `idle_share` | 0.5 |"))
        lines = [p.line() for p in ax.audit_texts("f", ax.load_results(path), rendered(path),
                                                  stricter)]
        self.assertTrue(any("run 0: idle-window" in line and "run 0 makes no idle-window"
                            in line for line in lines), lines)

    def test_a_multi_trial_claim_listed_for_a_run_that_does_not_make_it(self):
        path = fixture("same-aggregate-trials")
        self.caught(path, "default", "  runs 1, 3, 5, 7, 9 (as run 'four workers' in every trial):",
                    "  runs 0, 1, 3, 5, 7, 9 (as runs 'one worker', 'four workers', every trial):",
                    "run 0: same-aggregate-slower-copies", "run 0 makes no")

    def test_where_the_bytes_live_and_a_far_node(self):
        # Issue 56, item 4: the --full line counts each node's copies; the finding names the far
        # node (a fake topology: device 0 nearest node 0).
        path = fixture("far-node")
        self.caught(path, "full", "node 0 for 4, node 1 for 4", "node 0 for 5, node 1 for 3",
                    "run 0: where the bytes live")
        self.caught(path, "default", "the host pages of 4 of the 8 sampled copies were mostly on "
                    "NUMA node 1", "the host pages of 4 of the 8 sampled copies were mostly on "
                    "NUMA node 2", "run 0: far-node", "its node is '1'")

    def test_a_range_that_leaves_out_a_listed_trials_figure(self):
        # Issue 53: a range must hold every listed trial's own figure; its trials waited 60.4 to
        # 61.6 ms, and a range that stops at 61.0 leaves one of them out.
        path = fixture("same-aggregate-trials")
        self.caught(path, "default", "calls waited 60.4-61.6 ms", "calls waited 60.4-61.0 ms",
                    "waiting-not-moving", "its wait is 61.6 ms")

    def test_a_head_that_miscounts_the_trials(self):
        path = fixture("same-aggregate-trials")
        self.caught(path, "default", "(as run 'four workers' in every trial)",
                    "(as run 'four workers' in 4 of 5 trials)", "why head",
                    "5 of its 5 runs listed, the head says 4 of 5")

    def test_a_machine_line_that_miscounts(self):
        path = fixture("host-activity-busy")
        self.caught(path, "default", "Machine: shared during 1 of 1 runs",
                    "Machine: shared during 2 of 1 runs", "shared-machine", "its flagged is 1")
        self.caught(path, "brief", "kept 1.2 of 2 CPUs", "kept 0.2 of 2 CPUs", "shared-machine",
                    "its others is 1.2")


if __name__ == "__main__":
    unittest.main()
