"""Unit tests of the figures' Python code (python_lib/xferlab_plots) that need numpy only, not
matplotlib: the pixel merging of the timeline, the runs a sweep line joins, the selection of runs.
Run by ctest (tests/CMakeLists.txt) with the embedded Python's interpreter."""
import json
import os
import unittest

import numpy as np

from xferlab_plots import results, sweep, timeline
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


if __name__ == "__main__":
    unittest.main()
