#!/usr/bin/env python3
"""Why a copy's memory views take longer after a large copy (issue #58): one caller's staged
copies through a measured engine, each timed from the module's entry to its memory views
(Engine.stats()["last_call_ns"]: entered -> viewed), alternately with and without a plain NumPy
copy of --evict bytes between the calls (no engine involved: it only streams memory through the
caches). Where the views leg grows with the copy between, the leg pays for caches that copy
evicted, not for anything of the engine's.

    PYTHONPATH=build/python-testing tests/bench/bench-views-cache.py --fake   # no GPU
    PYTHONPATH=build-gpu/python-testing tests/bench/bench-views-cache.py     # CuPy on a GPU
"""
import argparse
import os
import statistics
import sys

import numpy as np

MiB = 1 << 20


def device_array(n, fake):
    if fake:
        from bench_module import fake_frameworks
        return fake_frameworks.FakeCupyArray(n)
    import cupy
    return cupy.empty(n, dtype=cupy.uint8)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--fake", action="store_true",
                   help="the test build's fake device (xferlab._core._testing), no GPU")
    p.add_argument("--bytes", type=int, default=1, help="MiB per staged copy (default 1)")
    p.add_argument("--evict", type=int, default=64, help="MiB of the NumPy copy between calls")
    p.add_argument("--repeats", type=int, default=400)
    args = p.parse_args()
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    if args.fake:
        from bench_module import fake_frameworks
        fake_frameworks.install()
    import xferlab
    n = args.bytes * MiB
    engine = xferlab.Engine(device=0, measure=True, direct_below=0)
    host = np.full(n, 3, dtype=np.uint8)
    dst = device_array(n, args.fake)
    big = np.ones(args.evict * MiB, dtype=np.uint8)
    scratch = np.empty_like(big)
    engine.copy(dst, host)  # warm-up, untimed
    legs = {"back to back": [], f"after a {args.evict} MiB NumPy copy": []}
    for _ in range(args.repeats):
        for name, rows in legs.items():  # interleaved: drift hits both alike
            if name != "back to back":
                np.copyto(scratch, big)
            engine.copy(dst, host)
            call = engine.stats()["last_call_ns"]
            rows.append((call["viewed"] - call["entered"]) / 1e3)
    engine.close()
    print(f"xferlab {xferlab.__version__}; {n // MiB} MiB copies, {args.repeats} of each, "
          f"interleaved; the memory views leg (us):")
    for name, rows in legs.items():
        assert all(r >= 0 for r in rows), "views before entry: the moments are out of order"
        print(f"  {name:<32} median {statistics.median(rows):7.1f}  "
              f"(p10 {statistics.quantiles(rows, n=10)[0]:.1f}, "
              f"p90 {statistics.quantiles(rows, n=10)[-1]:.1f})")


if __name__ == "__main__":
    main()
