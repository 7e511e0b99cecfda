"""The model of tests/bench/bench_module/limit.py (issue #58): the limit of a staged copy from its
measured parts, against hand-computed cases. Standard library only (the model is arithmetic)."""
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench"))

from bench_module.limit import GAP_PARTS, copy_edges, gap_parts, model, span_limit  # noqa: E402

GiB, MiB = 1 << 30, 1 << 20


class Model(unittest.TestCase):
    def test_link_bound_loses_the_first_fill(self):
        # Helpers twice as fast as the link: the DMAs follow each other after the first fill.
        S, D, L = GiB, 8 * MiB, 50e9
        t = D / 100e9 + S / L
        self.assertAlmostEqual(model(S, D, P=L, L=L, Lw=L, FN=100e9, FNd=100e9), (S / L) / t)
        self.assertAlmostEqual(model(S, D, P=L, L=L, Lw=L, FN=100e9, FNd=100e9), 1 / (1 + 8 / 1024 * 50 / 100))

    def test_a_link_slowed_by_the_fill_is_the_limit(self):
        # The link reads at 45 GB/s while the helpers fill: that, not 50, sets the pace.
        S, D = GiB, 8 * MiB
        got = model(S, D, P=50e9, L=50e9, Lw=45e9, FN=100e9, FNd=100e9)
        self.assertAlmostEqual(got, (S / 50e9) / (D / 100e9 + S / 45e9))
        self.assertLess(got, 0.9)

    def test_fill_bound_waits_for_each_fill(self):
        S, D = GiB, 8 * MiB
        got = model(S, D, P=50e9, L=50e9, Lw=50e9, FN=40e9, FNd=30e9)
        self.assertAlmostEqual(got, (S / 50e9) / (D / 40e9 + (S - D) / 30e9 + D / 50e9))

    def test_four_callers_share_one_first_fill(self):
        S, D, L = GiB, 8 * MiB, 50e9
        one = model(S, D, P=L, L=L, Lw=L, FN=100e9, FNd=100e9)
        four = model(S, D, P=L, L=L, Lw=L, FN=100e9, FNd=100e9, callers=4)
        self.assertGreater(four, one)
        self.assertAlmostEqual(four, (4 * S / L) / (D / 100e9 + 4 * S / L))


if __name__ == "__main__":
    unittest.main()


class SpanLimit(unittest.TestCase):
    def test_the_first_fill_at_the_helpers_rate_then_the_span_then_the_drain(self):
        S, D, P = GiB, 8 * MiB, 55e9
        got = span_limit(S, D, P, FN=80e9, span_us=20_700, drain_us=50, around_us=0)
        self.assertAlmostEqual(got, (S / P) / (D / 80e9 + 0.0207 + 0.00005))
        self.assertLess(got, (S / P) / 0.0207)  # never above the span alone

    def test_the_references_time_around_its_call_counts_in_the_limit(self):
        """P's rate holds the time around the reference's call (its thread's start and join):
        a limit timed as the reference is holds it too, and is lower by its share."""
        S, D, P = GiB, 8 * MiB, 55e9
        alone = span_limit(S, D, P, FN=80e9, span_us=20_700, drain_us=50, around_us=0)
        timed = span_limit(S, D, P, FN=80e9, span_us=20_700, drain_us=50, around_us=100)
        self.assertAlmostEqual(timed, (S / P) / (D / 80e9 + 0.0207 + 0.00005 + 0.0001))
        self.assertLess(timed, alone)

    def test_the_gap_taken_apart(self):
        """Each part x the copy's time; the thread's start and join past the reference's."""
        limit = {"bytes": GiB, "dma": 8 * MiB}
        row = {"one caller, measured engine": GiB / 0.021, "FN": 8 * MiB / 100e-6,
               "P around": 100,
               "edges": {"around_call_us": 121, "call_to_arrival_us": 210,
                         "to_first_dma_us": 310, "finished_to_return_us": 42}}
        parts = gap_parts(limit, row, "edges", "")
        self.assertEqual(set(parts), set(GAP_PARTS))
        for key, us in (("around_past_the_reference's", 21), ("call_to_arrival", 210),
                        ("first_dma_past_fill", 210), ("back_to_caller", 42)):
            self.assertAlmostEqual(parts[key], us / 21_000, msg=key)

    def test_a_copys_edges_from_two_running_means(self):
        before = {"edges": {"copies": 2, "to_first_dma_us": 100, "dma_span_us": 1000,
                            "after_last_dma_us": 10, "link_starved_us": 120}}
        after = {"edges": {"copies": 3, "to_first_dma_us": 200, "dma_span_us": 1100,
                           "after_last_dma_us": 20, "link_starved_us": 130}}
        e = copy_edges(before, after)
        self.assertAlmostEqual(e["to_first_dma_us"], 400)  # 600 - 200
        self.assertAlmostEqual(e["dma_span_us"], 1300)
        self.assertAlmostEqual(e["after_last_dma_us"], 40)
        self.assertAlmostEqual(e["link_starved_us"], 150)


class LockCounts(unittest.TestCase):
    def test_the_locks_counts_between_two_stats(self):
        from bench_module.limit import lock_counts
        before = {"lock": {"contended": 10, "slept": 4}}
        after = {"lock": {"contended": 25, "slept": 4}}
        self.assertEqual(lock_counts(before, after), {"contended": 15, "slept": 0})
