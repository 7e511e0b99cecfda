"""The model of tests/bench/bench_module/limit.py (issue #58): the limit of a staged copy from its
measured parts, against hand-computed cases. Standard library only (the model is arithmetic)."""
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench"))

from bench_module.limit import model  # noqa: E402

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
