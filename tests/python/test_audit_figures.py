"""Unit tests of the figure audit (audit_header.py, audit_figures.py, audit_full.py and
audit_threads.py, issue 53): its arithmetic and readers on small inputs, and errors planted in
each kind of figure a real rendered report prints (header, tables, --full's detail lines), each
of which the audit must catch while the report as rendered passes. Each plant is audited in the
view it is planted in, with the whole audit (audit_explanations.audit_texts).

Run: python3 -m unittest -v test_audit_figures (from tests/python); needs the xferlab binary
as test_audit_explanations does. Standard library only.
"""

import os
import unittest

import audit_explanations as ax
import audit_full_read as full_read
import audit_header as header
import audit_threads as threads
from audit_figures import pooled_p50
from audit_stats import mean_interval, t_quantile
from test_audit_explanations import (C, REVIEW, ROOT, fixture, plan_of, rec, rendered, run_of,
                                     serial)

MEASURED = os.path.join(ROOT, "tests", "fixtures", "measured")
FRAMEWORKS = os.path.join(MEASURED, "h200-frameworks.frameworks.results.json.xz")
STAGED = os.path.join(ROOT, "docs", "results", "2026-12-01-h200-cure3",
                      "staged-wait.results.json.xz")
TRIALS = fixture("same-aggregate-trials")


class Arithmetic(unittest.TestCase):
    def test_t_quantiles(self):
        # t(0.975, df) from the tables: 12.706, 4.303, 2.776, 2.262, 2.042.
        for df, t in ((1, 12.7062), (2, 4.3027), (4, 2.7764), (9, 2.2622), (30, 2.0423)):
            self.assertAlmostEqual(t_quantile(0.95, df), t, places=4)

    def test_mean_interval(self):
        low, high = mean_interval([1.0, 2.0, 3.0], 0.95)    # 2 +- 4.303 * 1 / sqrt(3)
        self.assertAlmostEqual(high, 2 + 4.30265 / 3 ** 0.5, places=4)
        self.assertEqual(low, 0.0)                           # below zero: no bandwidth is
        self.assertIsNone(mean_interval([5.0], 0.95))

    def test_sizes(self):
        self.assertEqual(header.size_text(100_000_000), "100 MB")
        self.assertEqual(header.size_text(256 << 20), "256 MiB")
        self.assertEqual(header.size_text(1536 << 10), "1.5 MiB")
        self.assertEqual(threads.size_text(8 << 20), "8 MiB")
        self.assertEqual(threads.size_text(8380416), "7.99 MiB")

    def test_thread_differences(self):
        base = {"worker": 0, "stack_size": 8 << 20, "cpus": [0, 1, 2, 3], "python_thread": False}
        run = {"thread_infos": [dict(base, worker=0, python_thread=True),
                                dict(base, worker=1, python_thread=True, cpus=[1])]}
        self.assertEqual(threads.thread_differences(run, {"thread_infos": [base]}),
                         ["python_thread: no vs yes", "worker 1: cpus: 0-3 vs 1"])

    def test_signal_sets(self):
        self.assertEqual(threads.signals_text([2, 15]), "{SIGINT, SIGTERM}")
        self.assertEqual(threads.signals_text([]), "none")

    def test_a_block_that_raised_is_no_measured_copy(self):
        # As tests/unit/test_report_stats.cpp's case: worker 1's block at 3 s raised.
        s = 1_000_000_000
        failed = dict(rec(1, 3 * s, 31 * s // 10, size=s), failed=True)
        plan = plan_of(run_of([rec(0, 0, s, size=s), rec(1, s, 2 * s, size=s),
                               rec(0, 2 * s, 5 * s // 2, size=s), failed,
                               rec(0, 4 * s, 9 * s // 2, size=s)]))
        run = plan.runs[0]
        h = run.handoffs[-1]
        self.assertEqual((h.copies, round(h.rate, 6)), (4, round(2 / 3, 6)))
        self.assertNotIn(1, run.gaps_by_worker)
        self.assertAlmostEqual(pooled_p50(plan.groups[0]), 1.5e9)

    def test_the_docs_give_the_settings_tables(self):
        self.assertEqual(header.KEYS["threads"][:2], ["count", "start"])
        self.assertIn("bytes", header.KEYS["transfer"])
        self.assertIn("chunk", header.KEYS["staging"])


    def test_a_watched_run_has_only_its_launcher_and_backend(self):
        # xferlab watch: the program ran with none of xferlab's settings; its recorded ones are
        # the defaults, and must not count as differing from the reference runs' (the header
        # lists the reference runs' transfer keys under 'What ran').
        watched = {"backend": "cuda", "settings": {
            "launcher": "watched", "backend": "cuda", "payload": "",
            "transfer": {"bytes": 1 << 20, "repetitions": 10}}}
        self.assertEqual(header.run_settings(watched), [("launcher", "watched"),
                                                        ("backend", "cuda")])
        host = {"backend": "cuda", "settings": {"launcher": "host", "backend": "cuda",
                                                "transfer": {"repetitions": 5}}}
        self.assertIn(("transfer.repetitions", "5"), header.run_settings(host))


    def test_a_watched_program_beside_its_reference_run(self):
        # Three HtoD copies of the program on device 0 (1, 2 and 4 GB/s device-timed), one DtoH;
        # the page-locked reference xferlab timed afterwards on device 0 h2d.
        def watched(size, ds, de, kind):
            return dict(rec(0, ds - 5, de + 5, ds, de, device=0, size=size), copy_kind=kind)
        program = run_of([watched(1000, 0, 1000, "HtoD"), watched(2000, 2000, 3000, "HtoD"),
                          watched(4000, 4000, 5000, "HtoD"), watched(9000, 6000, 7000, "DtoH")],
                         launcher="watched", label="watched", threads=1)
        reference = run_of(serial([0, 0, 0]), launcher="host", label="reference pinned h2d "
                           "device 0", threads=1,
                           transfer={"devices": [0], "direction": "h2d", "bytes": 8 << 20})
        from audit_rules import watched_reference
        plan = plan_of(program, reference)
        found = watched_reference(plan, plan.runs[0])
        self.assertEqual(len(found), 1)  # d2h: no reference run there
        f = found[0].fields
        self.assertEqual((f["device"].value, f["direction"].value), ("0", "h2d"))
        self.assertAlmostEqual(f["rate"].value, 2e9)  # the p50 of 1, 2 and 4 GB/s
        self.assertEqual(f["what"].value, "a page-locked copy of 8 MiB")
        self.assertAlmostEqual(f["reference"].value, plan.runs[1].aggregate)
        self.assertEqual(f["run"].value, [1])
        self.assertEqual(watched_reference(plan, plan.runs[1]), [])  # not a watched run


class Reading(unittest.TestCase):
    def test_a_section_reads_into_items(self):
        text = ("Run 0: host (host, cuda backend, 4 threads, ok)\n"
                "  40 copies x 256 MiB (+8 warm-up), 10 per worker, in 1.52 s on device 0; copy\n"
                "    time p50 32.5 ms; host peak 3\n"
                "  worker   tid  mean GB/s   min   max  worker GB/s  share\n"
                "       0  2609       6.27  0.490  7.26         2.99    15%\n"
                "  thread attributes, run 0 vs this run:\n"
                "    python_thread: no vs yes\n"
                "  something new: 3.5 GB/s\n")
        (title, items), = full_read.sections(text)[0]
        self.assertEqual(title, "Run 0: host (host, cuda backend, 4 threads, ok)")
        self.assertEqual([i.kind for i in items], ["copies", "workers", "threads", "unread"])
        self.assertTrue(items[0].text.endswith("copy time p50 32.5 ms; host peak 3"))
        self.assertEqual(items[2].diffs, ["python_thread: no vs yes"])
        self.assertEqual(items[2].baseline, 0)


class Planted(unittest.TestCase):
    """Each plant changes one figure of a rendered view; the audit of that view must name it."""

    def lines(self, path, view, text=None):
        texts = {view: rendered(path)[view] if text is None else text}
        return [p.line() for p in ax.audit_texts(os.path.basename(path), ax.load_results(path),
                                                 texts, C)]

    def caught(self, path, view, old, new, *whys):
        text = rendered(path)[view]
        self.assertTrue(old in text, f"{old!r} is not in the rendered {view} view")
        lines = self.lines(path, view, text.replace(old, new, 1))
        self.assertTrue(lines, f"nothing caught: {new!r}")
        for why in whys:
            self.assertTrue(any(why in line for line in lines), f"{why!r} not in {lines}")
        return lines

    def test_the_views_as_rendered_pass(self):
        for path in (REVIEW, TRIALS, FRAMEWORKS, STAGED):
            for view in ("default", "full", "brief"):
                with self.subTest(path=os.path.basename(path), view=view):
                    self.assertEqual(self.lines(path, view), [])

    # --- the header
    def test_gil_swapped_in_what_differs(self):
        self.caught(REVIEW, "default",
                    "python gil=release: launcher = python, payload = threads.py, gil = release\n"
                    "  python gil=hold: launcher = python, payload = threads.py, gil = hold",
                    "python gil=release: launcher = python, payload = threads.py, gil = hold\n"
                    "  python gil=hold: launcher = python, payload = threads.py, gil = release",
                    "python gil=release: gil = hold: default report: its run 1 has gil = release",
                    "python gil=hold: gil = release: default report: its run 2 has gil = hold")

    def test_a_setting_in_what_ran(self):
        self.caught(REVIEW, "full", "repetitions = 10,", "repetitions = 12,",
                    "transfer.repetitions = 12: --full: every run that has it has 10")

    def test_a_setting_the_file_lacks(self):
        self.caught(REVIEW, "default",
                    "    staging, threads.gap_counters, threads.gap_stages, transfer.context,",
                    "    staging, threads.gap_counters, threads.gap_stages,",
                    "the file lacks staging, threads.gap_counters, threads.gap_stages, "
                    "transfer.context")

    def test_a_gap_stage(self):
        # Issue 57: a run's gap stages and counters, word for word from its records.
        path = os.path.join(ROOT, "docs", "results", "2026-12-06-vm-gap-stages",
                            "isolate-gap-stages-1.results.json.xz")
        text = rendered(path)["full"]
        line = next(l for l in text.splitlines() if l.startswith("  gap stages over "))
        changed = line.replace(" over ", " over 1", 1)
        self.caught(path, "full", line, changed, "gap lines")

    def test_the_title_and_host(self):
        self.caught(TRIALS, "brief", "(2 x 5 trials)", "(2 x 4 trials)", "header: title")
        self.caught(REVIEW, "brief", "32 CPUs", "16 CPUs", "header: host")

    # --- the tables
    def test_the_trials_tables_ci_and_cv(self):
        # The mean's interval is --full's; the default table has the trials' CV and the
        # verdict's interval of the ratio.
        self.caught(TRIALS, "full", "[4.88, 4.97]", "[4.88, 4.99]",
                    "label 'one worker': trials table: 95% CI high '4.99'")
        self.caught(TRIALS, "full", "0.008  baseline", "0.009  baseline",
                    "label 'one worker': trials table: CV '0.009'")
        self.caught(TRIALS, "default", "0.008  baseline", "0.009  baseline",
                    "label 'one worker': trials table: trial CV '0.009'")
        self.caught(TRIALS, "default", "[0.98x, 1.01x], p=0.69", "[0.98x, 1.03x], p=0.69",
                    "trials table", "its ci_high is 1.01x")

    def test_the_bandwidth_tables_concurrency_cv_and_jain(self):
        self.caught(REVIEW, "default", "1.9 / 0.9", "1.9 / 1.9",
                    "run 0: bandwidth table: device concurrency '1.9'")
        self.caught(REVIEW, "full", "0.27  0.80", "0.27  0.99",
                    "run 0: bandwidth table", "its jain is 0.80, printed '0.99'")
        self.caught(REVIEW, "default", "0.75  0.98", "0.65  0.98",
                    "run 1: bandwidth table: CV '0.65'")

    def test_the_plans_bandwidth_table(self):
        self.caught(TRIALS, "default", "1.23 GB/s  0.00  1.00  3.6 / 1.0",
                    "1.32 GB/s  0.00  1.00  3.6 / 1.0", "label 'four workers': bandwidth table: "
                    "per-copy p50 '1.32 GB/s'")
        self.caught(TRIALS, "default", "1.23 GB/s  0.00  1.00  3.6 / 1.0",
                    "1.23 GB/s  0.00  0.90  3.6 / 1.0", "label 'four workers': bandwidth table: "
                    "Jain '0.90'")
        self.caught(TRIALS, "default", "1.23 GB/s  0.00  1.00  3.6 / 1.0",
                    "1.23 GB/s  0.00  1.00  3.0 / 1.0", "label 'four workers': bandwidth table: "
                    "host concurrency '3.0'")

    def test_the_runs_tables_launcher_and_threads(self):
        self.caught(REVIEW, "default", "  2  python gil=hold       python      4",
                    "  2  python gil=hold       python      3", "run 2: runs table: thr '3'")

    # --- --full's detail lines
    def test_the_device_and_host_peaks(self):
        self.caught(REVIEW, "full", "device-side conc. 0.88 (peak 1)",
                    "device-side conc. 0.88 (peak 2)", "run 0: device line",
                    "its peak is 1, printed '2'")
        self.caught(REVIEW, "full", "; host peak 3", "; host peak 2", "run 0: copies line",
                    "its peak is 3, printed '2'")

    def test_a_workers_run_length_and_rate(self):
        self.caught(REVIEW, "full", "2.45 us  2.65 us      6.0", "2.45 us  2.65 us      5.0",
                    "run 0: workers: worker 3: run len '5.0'")
        self.caught(REVIEW, "full", "8.54    43%", "8.54    34%", "worker 2: share '34%'")

    def test_the_device_timed_and_copy_time_p50s(self):
        self.caught(REVIEW, "full", "device-timed per-copy p50 (p10-p90): 8.36",
                    "device-timed per-copy p50 (p10-p90): 8.46", "run 0: device-timed line",
                    "its p50 is 8.36, printed '8.46'")
        self.caught(REVIEW, "full", "copy time p50 32.5 ms", "copy time p50 35.2 ms",
                    "run 0: copies line", "its p50 is 32.5 ms, printed '35.2 ms'")

    def test_the_hand_off_line(self):
        self.caught(REVIEW, "full", "(device clock, 40 copies + 5 warm-up)",
                    "(device clock, 40 copies + 4 warm-up)", "run 0: hand-off line")

    def test_the_thread_attributes_run_list(self):
        self.caught(REVIEW, "full", "  runs 1, 2:\n    thread attributes",
                    "  runs 1, 3:\n    thread attributes",
                    "run 2: thread attributes: python_thread: no vs yes: --full: not printed",
                    "run 3: thread attributes: python_thread: no vs yes: --full: not a difference")
        self.caught(REVIEW, "full", "thread attributes, run 0 vs these runs",
                    "thread attributes, run 3 vs these runs", "compared with run 0's")

    def test_the_run_title_and_payload(self):
        self.caught(REVIEW, "full", "Run 2: python gil=hold (python, cuda backend, 4 threads",
                    "Run 2: python gil=hold (python, cuda backend, 3 threads", "run 2: run title")
        self.caught(FRAMEWORKS, "full", "cbb38a9b0194c2", "cbb38a9b0194c3", "run 9: payload: ",
                    "its payload line is")

    def test_the_timed_blocks_and_staging_helpers(self):
        self.caught(FRAMEWORKS, "full", "timed blocks 'cupy set h2d': 24 (4 warm-up)",
                    "timed blocks 'cupy set h2d': 24 (5 warm-up)", "timed blocks",
                    "its warmup is 4, printed '5'")
        text = rendered(STAGED)["full"]
        line = next(line for line in text.splitlines() if ": 10 helpers, " in line)
        self.caught(STAGED, "full", line, line.replace(": 10 helpers, ", ": 11 helpers, "),
                    "helpers line", "its helpers is 10, printed '11'")

    def test_a_block_the_audit_does_not_read_and_a_missing_row(self):
        self.caught(REVIEW, "default", "\nSummary\n",
                    "\nDevices\n  device 0: 8.36 GB/s\n\nSummary\n",
                    "report: layout: Devices: default report: a block the audit does not read")
        row = next(line for line in rendered(REVIEW)["default"].splitlines()
                   if line.startswith("  4  8.06 GB/s  "))
        self.caught(REVIEW, "default", "\n" + row, "",
                    "table: bandwidth table: rows ['0', '1', '2', '3']")
        self.caught(TRIALS, "default", "\nVerdicts across trials", "\nVerdicts of the trials",
                    "0 'trials' tables: one in this view")

    def test_a_line_the_audit_does_not_read(self):
        self.caught(REVIEW, "full", "  device 0: 4 workers, 40 copies, device-side conc. 0.88",
                    "  device 0: idle 12% of the window\n"
                    "  device 0: 4 workers, 40 copies, device-side conc. 0.88",
                    "run 0: run section: device 0: idle 12% of the window",
                    "a line of no shape the audit reads")


if __name__ == "__main__":
    unittest.main()
