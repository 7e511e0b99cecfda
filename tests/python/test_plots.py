"""Unit tests of the figures' Python code (python/xferlab_plots) that need numpy only, not
matplotlib: the pixel merging of the timeline, the runs a sweep line joins, the selection of runs,
the copies handed over as columns (and, where matplotlib is there, the figures drawn from them).
Run by ctest (tests/CMakeLists.txt) with the embedded Python's interpreter."""
import importlib.util
import json
import lzma
import os
import re
import struct
import tempfile
import unittest

import numpy as np

import xferlab_plots
from xferlab_plots import handoff, results, style, sweep, timeline
from xferlab_plots.errors import PlotError

SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIXTURES = os.path.join(SOURCE, "tests", "fixtures", "plots")


def fixture(name):
    with open(os.path.join(FIXTURES, name), "rb") as f:
        return results.load(f.read())


class MergeToPixels(unittest.TestCase):
    def spans(self, start, end, ns_per_px, origin=0):
        x0, width = timeline.merge_to_pixels(np.array(start), np.array(end), origin, ns_per_px)
        return list(zip(x0.tolist(), width.tolist()))

    def test_touching_intervals_become_one_span(self):
        self.assertEqual(self.spans([0, 10], [10, 20], 5), [(0, 20)])

    def test_a_gap_of_a_whole_pixel_stays(self):
        self.assertEqual(self.spans([0, 20], [10, 30], 5), [(0, 10), (20, 10)])

    def test_an_interval_shorter_than_a_pixel_covers_one(self):
        self.assertEqual(self.spans([0, 100], [1, 101], 10), [(0, 10), (100, 10)])

    def test_100000_intervals_in_4000_columns_come_back_as_few_spans(self):
        start = np.arange(100_000, dtype=np.int64) * 40
        x0, width = timeline.merge_to_pixels(start, start + 30, 0, 1000)
        self.assertEqual(len(x0), 1)  # back to back at this resolution: one bar
        self.assertEqual(width[0], 4_000_000)

    def test_times_before_the_origin_start_at_the_first_column(self):
        self.assertEqual(self.spans([-5], [7], 5, origin=0), [(0, 10)])


class Sweeps(unittest.TestCase):
    def test_the_fixtures_thread_sweep_has_one_line_per_run_table(self):
        data = fixture("sweep.results.json")
        [(key, lines)] = sweep.swept(data, data.runs)
        self.assertEqual(key, "threads.count")
        self.assertEqual([s.label for s in lines], ["host", "python gil=release"])
        self.assertEqual([[(v, r.index) for v, r in s.points] for s in lines],
                         [[("1", 0), ("2", 2)], [("1", 1), ("2", 3)]])

    def test_run_tables_that_differ_in_one_key_make_a_line_through_it(self):
        # isolate-handoff's shape: host runs with threads.between overrides, a python run.
        data = fixture("sweep.results.json")
        host = [r for r in data.runs if r.launcher == "host"]
        host[0].overrides = {}
        host[1].overrides = {"threads.between": "spin:20us"}
        data.sweep_keys = []
        runs = host + [r for r in data.runs if r.launcher == "python"][:1]
        for r in runs:
            r.sweep_point = {}
        [(key, lines)] = sweep.swept(data, runs)
        self.assertEqual(key, "threads.between")
        self.assertEqual([(v, r.index) for v, r in lines[0].points], [("none", 0), ("spin:20us", 2)])


    def test_runs_that_differ_in_params_are_different_lines(self):
        data = fixture("sweep.results.json")
        host = [r for r in data.runs if r.launcher == "host"]
        python = [r for r in data.runs if r.launcher == "python"]
        data.sweep_keys = []
        for r, between in zip(host + python, ["none", "spin:20us"] * 2):
            r.launcher, r.sweep_point = "host", {}
            r.overrides = {"threads.between": between}
            r.settings = dict(r.settings, payload="", params={"batch": r in python})
        [(key, lines)] = sweep.swept(data, host + python)
        self.assertEqual(key, "threads.between")
        self.assertEqual(len(lines), 2)
        for s in lines:
            self.assertEqual([len(v) for _, v in s.by_value("aggregate_Bps")], [1, 1])


class Trials(unittest.TestCase):
    """tests/fixtures/plots/trials.results.json: the sweep fixture with 3 trials run in a
    shuffled order (scenario.seed 3), so that a run's index says neither its trial nor its
    [[run]] table."""

    def setUp(self):
        self.data = fixture("trials.results.json")
        with open(os.path.join(FIXTURES, "trials.results.json"), "rb") as f:
            self.groups = json.load(f)["trial_groups"]

    def test_the_fixture_is_shuffled(self):
        # Otherwise the tests below could pass with index % tables.
        tables = [r.index % 2 == r.position % 2 for r in self.data.runs]
        self.assertIn(False, tables)

    def test_one_row_per_label_in_plan_order_with_its_trials(self):
        rows = results.rows(self.data.runs)
        self.assertEqual([row.first.label for row in rows],
                         ["host threads.count=1", "python gil=release threads.count=1",
                          "host threads.count=2", "python gil=release threads.count=2"])
        for row in rows:
            self.assertEqual([r.trial for r in row.runs], [1, 2, 3])
            self.assertEqual({r.label for r in row.runs}, {row.first.label})
            self.assertTrue(row.title.startswith(f"{row.first.label} (3 trials: runs "))

    def test_the_bar_is_the_median_of_the_trials_and_the_interval_the_files(self):
        by_label = {g["label"]: g for g in self.groups}
        for row in results.rows(self.data.runs):
            group = by_label[row.first.label]
            self.assertEqual(sorted(row.values("aggregate_Bps")), sorted(group["aggregate_Bps"]))
            self.assertAlmostEqual(row.median("aggregate_Bps"), group["median_Bps"], delta=1)
            self.assertEqual(row.interval, (group["mean_ci_low"], group["mean_ci_high"]))

    def test_one_selected_trial_is_a_run_of_its_own_and_says_its_trial(self):
        run = self.data.runs[5]
        [row] = results.rows([run])
        self.assertFalse(row.is_trials)
        self.assertIsNone(row.interval)  # the file's interval describes all three trials
        self.assertEqual(row.title, f"5: {run.label} (trial {run.trial})")

    def test_a_sweep_line_joins_one_run_table_and_keeps_every_trial(self):
        [(key, lines)] = sweep.swept(self.data, self.data.runs)
        self.assertEqual([s.label for s in lines], ["host", "python gil=release"])
        for s in lines:
            self.assertEqual({r.launcher for _, r in s.points}, {s.label.split()[0]})
            at = s.by_value("aggregate_Bps")
            self.assertEqual([text for text, _ in at], ["1", "2"])
            self.assertEqual([len(values) for _, values in at], [3, 3])


class TrialsWithFailures(unittest.TestCase):
    """The bar is what the verdicts compare: ok trials only (report/analysis/trial_analysis.cpp)."""

    def setUp(self):
        self.data = fixture("trials.results.json")
        self.row = results.rows(self.data.runs)[0]  # host threads.count=1, 3 trials
        self.failed = self.row.runs[1]

    def test_a_failed_trial_with_copies_is_drawn_but_not_counted(self):
        ok = [r.statistic("aggregate_Bps") for r in self.row.runs if r is not self.failed]
        self.failed.status = "failed"
        row = results.rows(self.data.runs)[0]
        self.assertEqual(row.values("aggregate_Bps"), ok)
        self.assertAlmostEqual(row.median("aggregate_Bps"), float(np.median(ok)))
        self.assertIn(f"; 1 not ok: {self.failed.index})", row.title)
        # The file's interval was computed from three ok trials: it does not describe two.
        self.assertIsNone(row.interval)

    def test_the_interval_stays_when_the_file_left_the_failed_trial_out(self):
        # A trial that failed before its first copy: not drawn, not in the file's figures.
        group = self.failed.extra["trial_group"]
        group["aggregate_Bps"] = [v for v in group["aggregate_Bps"]
                                  if v != self.failed.statistic("aggregate_Bps")]
        runs = [r for r in self.data.runs if r is not self.failed]
        row = results.rows(runs)[0]
        self.assertEqual(len(row.runs), 2)
        self.assertEqual(row.interval, (group["mean_ci_low"], group["mean_ci_high"]))


# What app/embed/plots.cpp hands over for a run: one bytearray per record key, each value packed
# as the C++ type it writes (int64, bool, double), native byte order. Kept apart from
# results.COLUMNS here so that a type changed on one side only fails.
HANDED_OVER = {"worker": "q", "warmup": "?", "size_bytes": "d", "host_start_ns": "q",
               "host_end_ns": "q", "device_start_ns": "q", "device_end_ns": "q"}


def handed_over(records):
    return {key: bytearray(b"".join(struct.pack("=" + code, r[key]) for r in records))
            for key, code in HANDED_OVER.items()}


def per_record(records, key, dtype):
    """A column as the figures read it before the columns: built from the records' dicts."""
    return np.fromiter((r[key] for r in records), dtype=dtype, count=len(records))


def column_form(name):
    """A fixture as `xferlab plot` hands it over: the text with "records": [] in every run, the
    records as columns. Returns (text, columns, the fixture's records per run)."""
    with open(os.path.join(FIXTURES, name), "rb") as f:
        doc = json.load(f)
    records = [run["records"] for run in doc["runs"]]
    for run in doc["runs"]:
        run["records"] = []
    return json.dumps(doc), [handed_over(r) for r in records], records


FIXTURE_NAMES = ("sweep.results.json", "failed.results.json", "trials.results.json")


class ColumnForm(unittest.TestCase):
    """The copies the figures receive as columns are those they received as per-record dicts."""

    def test_every_fixtures_copies_are_the_records_values_and_types(self):
        old_form = {"worker": np.int64, "warmup": bool, "size_bytes": np.float64,
                    "host_start_ns": np.int64, "host_end_ns": np.int64,
                    "device_start_ns": np.int64, "device_end_ns": np.int64}
        fields = {"worker": "worker", "warmup": "warmup", "size_bytes": "size",
                  "host_start_ns": "host_start", "host_end_ns": "host_end",
                  "device_start_ns": "device_start", "device_end_ns": "device_end"}
        for name in FIXTURE_NAMES:
            text, columns, records = column_form(name)
            for form, data in (("columns", results.load(text, columns)), ("records", fixture(name))):
                self.assertEqual(len(data.runs), len(records))
                for run, recs in zip(data.runs, records):
                    for key, dtype in old_form.items():
                        with self.subTest(fixture=name, form=form, run=run.index, key=key):
                            got = getattr(run.copies, fields[key])
                            want = per_record(recs, key, dtype)
                            self.assertEqual(got.dtype, want.dtype)
                            np.testing.assert_array_equal(got, want)

    def test_warm_ups_runs_without_copies_and_trials_come_out_alike(self):
        for name in FIXTURE_NAMES:
            text, columns, _ = column_form(name)
            old, new = fixture(name), results.load(text, columns)
            with self.subTest(fixture=name):
                self.assertEqual([(r.title, r.measured, len(r.copies)) for r in new.runs],
                                 [(r.title, r.measured, len(r.copies)) for r in old.runs])
                self.assertEqual([(r.title, r.values("aggregate_Bps"))
                                  for r in results.rows(new.runs)],
                                 [(r.title, r.values("aggregate_Bps"))
                                  for r in results.rows(old.runs)])
                self.assertEqual(results.drawable(new.runs)[1], results.drawable(old.runs)[1])
        # The facts the comparison rests on: warm-ups in every fixture, failed.results.json's
        # runs 1 and 2 without copies.
        failed = results.load(*column_form("failed.results.json")[:2])
        self.assertEqual([len(r.copies) for r in failed.runs], [6, 0, 0])
        self.assertEqual(int(np.count_nonzero(failed.runs[0].copies.warmup)), 2)

    def test_columns_of_different_lengths_are_refused(self):
        text, columns, _ = column_form("sweep.results.json")
        columns[0]["warmup"] = columns[0]["warmup"][:-1]
        with self.assertRaisesRegex(RuntimeError, "^columns of different lengths"):
            results.load(text, columns)


@unittest.skipUnless(importlib.util.find_spec("matplotlib"), "matplotlib is not installed")
class ColumnFormFigures(unittest.TestCase):
    def draw(self, name, **form):
        import xferlab_plots

        out = tempfile.mkdtemp(prefix="xferlab-columns-")
        drawn = xferlab_plots.draw(out_dir=out, fmt="svg", **form)
        # Clip-path ids are matplotlib's own (hashed from object addresses by 3.11).
        clip_id = re.compile(r'(url\(#|id=")p[0-9a-f]+')
        figures = {}
        for path in drawn["files"]:
            with open(path, encoding="utf-8") as f:
                figures[os.path.basename(path)] = clip_id.sub(r"\1p", f.read())
            os.remove(path)
        os.rmdir(out)
        return figures, drawn["notes"]

    def test_every_fixture_draws_the_same_svg_from_columns_as_from_records(self):
        for name in FIXTURE_NAMES:
            with open(os.path.join(FIXTURES, name), "rb") as f:
                whole = f.read()
            text, columns, _ = column_form(name)
            with self.subTest(fixture=name):
                old_figures, old_notes = self.draw(name, text=whole)
                new_figures, new_notes = self.draw(name, text=text, columns=columns)
                self.assertGreaterEqual(len(old_figures), 3)
                self.assertEqual(sorted(new_figures), sorted(old_figures))
                for figure, svg in old_figures.items():
                    self.assertTrue(new_figures[figure] == svg, figure)
                self.assertEqual(new_notes, old_notes)


HANDOFF = os.path.join(SOURCE, "tests", "fixtures", "measured",
                       "h200-restructure-cause.isolate-handoff.results.json.xz")


class Handoff(unittest.TestCase):
    """The hand-off figure's points and lines from the committed H200 isolate-handoff results
    (docs/results/h200-cause.md's table)."""

    def load(self, trials=1):
        with lzma.open(HANDOFF, "rb") as f:
            doc = json.load(f)
        runs = doc["runs"]
        for t in range(2, trials + 1):
            for r in runs[:8]:
                copy = json.loads(json.dumps(r))
                copy["index"] = r["index"] + 8 * (t - 1)
                copy["trial"] = t
                runs.append(copy)
        return results.load(json.dumps(doc))

    def test_one_point_per_run_at_its_gap_and_rate(self):
        pts, left = handoff.points(self.load().runs)
        self.assertEqual(left, [])
        got = [(p.run.index, round(p.gap_ns / 1e3, 2), round(p.rate, 2),
                round(p.p50_Bps / 1e9, 2)) for p in pts]
        self.assertEqual(got, [(0, 2.69, 0.18, 6.86), (1, 4.2, 0.12, 7.56), (2, 8.01, 0.26, 7.43),
                               (3, 23.38, 0.79, 1.75), (4, 103.36, 0.94, 1.66),
                               (5, 1085.09, 1.0, 1.72), (6, 37.02, 0.76, 1.74),
                               (7, 3.05, 0.12, 7.61)])

    def test_the_host_runs_that_differ_in_threads_between_alone_are_one_line(self):
        pts, _ = handoff.points(self.load().runs)
        lines = handoff.switches(pts)
        # The two Python runs differ in their payload: on no line.
        self.assertEqual([[p.run.index for p in s.points] for s in lines], [[0, 1, 2, 3, 4, 5]])

    def test_with_trials_a_point_per_trial_and_a_line_per_trial(self):
        pts, _ = handoff.points(self.load(trials=2).runs)
        self.assertEqual(len(pts), 16)
        lines = handoff.switches(pts)
        self.assertEqual(sorted([p.run.index for p in s.points] for s in lines),
                         [[0, 1, 2, 3, 4, 5], [8, 9, 10, 11, 12, 13]])

    def test_captions_say_what_sets_a_run_apart(self):
        data = self.load()
        self.assertEqual([handoff.caption(r) for r in data.runs],
                         ["0: host", "1: spin:1us", "2: spin:5us", "3: spin:20us", "4: spin:100us",
                          "5: sleep:1ms", "6: threads.py", "7: threads_batch.py"])

    def test_drawn_only_where_threads_between_varies(self):
        self.assertTrue(handoff.wanted(self.load().runs))
        for name in FIXTURE_NAMES:
            with self.subTest(fixture=name):
                self.assertFalse(handoff.wanted(fixture(name).runs))


class Selection(unittest.TestCase):
    def test_by_index_and_label_in_plan_order(self):
        data = fixture("sweep.results.json")
        chosen = results.select(data, ["host threads.count=2", "1"])
        self.assertEqual([r.index for r in chosen], [1, 2])

    def test_runs_without_copies_are_named(self):
        data = fixture("failed.results.json")
        kept, notes = results.drawable(data.runs)
        self.assertEqual([r.index for r in kept], [0])
        self.assertEqual(len(notes), 2)
        with self.assertRaisesRegex(PlotError, "^nothing to draw: run 2 "):
            results.drawable(data.runs[2:])

    def test_a_file_that_is_not_results_json(self):
        with self.assertRaisesRegex(PlotError, "^not an xferlab results.json: KeyError"):
            results.load(json.dumps({"runs": [{}]}))


def synthetic(runs, threads=1, sweep_key="transfer.bytes"):
    """A results.json text of `runs` host runs of `threads` workers, one copy each, swept over
    `sweep_key` (None: no sweep), with no analysis: what the figures need and nothing more."""
    def run(i):
        records = [{"worker": w, "warmup": False, "size_bytes": 4096, "host_start_ns": 1000 * i,
                    "host_end_ns": 1000 * i + 500, "device_start_ns": -1, "device_end_ns": -1}
                   for w in range(threads)]
        point = {sweep_key: str(4096 + i)} if sweep_key else {}
        return {"index": i, "label": f"host {i}", "status": "ok", "launcher": "host",
                "backend": "host", "threads": threads, "bytes_per_copy": 4096 + i,
                "sweep_point": point, "settings": {}, "records": records,
                "analysis": {"aggregate_Bps": 1e9 + i, "per_copy_Bps": {"p50": 1e9}}}
    sweep_list = [{"key": sweep_key}] if sweep_key else []
    return json.dumps({"scenario": {"scenario": {"name": "big"}, "run": [{}],
                                    "sweep": sweep_list},
                       "runs": [run(i) for i in range(runs)]})


class ManyRuns(unittest.TestCase):
    """Issue 54, item 6: a 1,500-run sweep took 148 s and 3.2 GB, then matplotlib refused a
    distribution figure of 1100x75204 pixels (a Python trace, exit 1). Timeline pages hold at
    most 6 runs and 96 lanes; past 200 runs or 40 pages only the figures that summarise the
    runs are drawn, and with none of those the selection is refused in one line."""

    def test_a_page_holds_six_runs_or_96_lanes(self):
        pages = timeline.pages(results.load(synthetic(13)).runs)
        self.assertEqual([len(p) for p in pages], [6, 6, 1])
        pages = timeline.pages(results.load(synthetic(5, threads=40)).runs)
        self.assertEqual([len(p) for p in pages], [2, 2, 1])
        wide = results.load(synthetic(3, threads=300)).runs
        self.assertEqual([len(p) for p in timeline.pages(wide)], [1, 1, 1])

    def test_past_the_limit_the_per_run_figures_are_named_and_left_out(self):
        data = results.load(synthetic(1500))
        why = xferlab_plots.too_many_runs(data.runs, timeline.pages(data.runs))
        self.assertEqual(why, "1500 runs selected (250 timeline pages): the timeline, "
                              "distribution and aggregate figures draw each run as a panel or "
                              "row, for at most 200 runs and 40 timeline pages; choose the runs "
                              "to draw with --run (an index or a label, repeatable)")
        within = results.load(synthetic(200)).runs
        self.assertIsNone(xferlab_plots.too_many_runs(within, timeline.pages(within)))
        # 41 pages of runs of 96 workers each, under 200 runs.
        wide = results.load(synthetic(41, threads=96)).runs
        self.assertIn("41 runs selected (41 timeline pages)",
                      xferlab_plots.too_many_runs(wide, timeline.pages(wide)))

    @unittest.skipUnless(importlib.util.find_spec("matplotlib"), "matplotlib is not installed")
    def test_a_1500_run_sweep_draws_its_sweep_figure_and_says_why_not_the_others(self):
        out = tempfile.mkdtemp(prefix="xferlab-many-")
        drawn = xferlab_plots.draw(synthetic(1500), out)
        self.assertEqual([os.path.basename(f) for f in drawn["files"]],
                         ["sweep-transfer.bytes.png"])
        self.assertIn("1500 runs selected (250 timeline pages)", drawn["notes"][-1])
        for f in drawn["files"]:
            os.remove(f)
        os.rmdir(out)

    def test_past_the_limit_with_no_summary_figure_the_selection_is_refused(self):
        with self.assertRaisesRegex(PlotError, "^201 runs selected \\(34 timeline pages\\)"):
            xferlab_plots.draw(synthetic(201, sweep_key=None), tempfile.gettempdir())

    @unittest.skipUnless(importlib.util.find_spec("matplotlib"), "matplotlib is not installed")
    def test_a_run_of_more_lanes_than_a_page_holds_is_cut_there_and_says_so(self):
        [run] = results.load(synthetic(1, threads=200)).runs
        fig, notes = timeline.draw_page([run], "big", "host")
        self.assertEqual(notes[0], "run 0: 200 lanes, the first 96 drawn (a timeline page "
                                   "holds at most 96); --run with fewer threads draws them all")
        self.assertEqual(len(fig.axes[1].get_yticks()), 96)

    @unittest.skipUnless(importlib.util.find_spec("matplotlib"), "matplotlib is not installed")
    def test_a_sweep_of_1500_values_labels_few_of_them(self):
        data = results.load(synthetic(1500, sweep_key="label.text"))
        for r in data.runs:  # values that are no numbers: the axis keeps plan order
            r.sweep_point = {"label.text": f"v{r.index}"}
        [(key, lines)] = sweep.swept(data, data.runs)
        fig, _ = sweep.draw(key, lines, "big")
        labels = [t.get_text() for t in fig.axes[0].get_xticklabels()]
        self.assertLessEqual(len(labels), sweep.MAX_TICKS)
        self.assertEqual(labels[:2], ["v0", "v94"])


class PlantedLinks(unittest.TestCase):
    """A figure is written through a temporary name in its folder (issue 48, item 2): a link
    planted under that name, in a folder others write into, must not be written through."""

    class Figure:  # what save() asks of a matplotlib figure, which takes a file or a path
        def savefig(self, out, format, dpi, metadata):
            if isinstance(out, str):
                with open(out, "wb") as f:
                    f.write(b"figure bytes")
            else:
                out.write(b"figure bytes")

    def test_a_link_under_the_temporary_name_keeps_its_target(self):
        with tempfile.TemporaryDirectory() as d:
            target = os.path.join(d, "target")
            with open(target, "w") as f:
                f.write("precious")
            path = os.path.join(d, "timeline.png")
            os.symlink(target, f"{path}.tmp-{os.getpid()}")
            style.save(self.Figure(), path, "png")
            with open(target) as f:
                self.assertEqual(f.read(), "precious")
            self.assertFalse(os.path.islink(path))
            with open(path, "rb") as f:
                self.assertEqual(f.read(), b"figure bytes")

    def test_a_link_under_the_figures_name_is_replaced_not_followed(self):
        with tempfile.TemporaryDirectory() as d:
            target = os.path.join(d, "target")
            with open(target, "w") as f:
                f.write("precious")
            path = os.path.join(d, "timeline.png")
            os.symlink(target, path)
            style.save(self.Figure(), path, "png")
            with open(target) as f:
                self.assertEqual(f.read(), "precious")
            self.assertFalse(os.path.islink(path))


if __name__ == "__main__":
    unittest.main()
