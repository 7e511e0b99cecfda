#!/usr/bin/env python3
"""Where a staged xferlab copy's time goes before it reaches the engine (issue #58): on a GPU host,
one caller's copy to a CuPy array and to a torch tensor through a measured engine, bracketed with
time.monotonic_ns() against the engine's own moments (Engine.stats()["last_copy_ns"], the same
clock) leg by leg (into the module's C++, its memory views, the route, the GIL's release and
the streams' waits, to the engine's lock, in the engine, back to Python), after idle gaps of 0,
0.2 and 1.5 s (the engine registry rescans at most once a second;
CPUs idle longer sleep deeper), for 1 GiB and for 16 MiB; and the steps of the module's own path
timed alone: the destination's __cuda_array_interface__, cudaPointerGetAttributes of the device
and the host memory, a synchronize of the legacy default stream.

    PYTHONPATH=build-gpu/python-testing tests/bench/bench-call-path.py [--repeats 5]

--smoke runs it on the test build's fake device with stand-ins for CuPy and PyTorch (small
copies, short gaps), so that a change that breaks it breaks where there is no GPU; it measures
nothing.
"""
import argparse
import os
import statistics
import sys
import time

import numpy as np

MiB = 1 << 20
cupy = torch = xferlab = None  # imported in main(): --smoke puts stand-ins in first


def median_us(fn, repeats=50):
    took = []
    for _ in range(repeats):
        t0 = time.monotonic_ns()
        fn()
        took.append((time.monotonic_ns() - t0) / 1e3)
    return statistics.median(took)


def steps(dev, host):
    """The module's own steps before an engine's copy, each timed alone (us, medians)."""
    rt = cupy.cuda.runtime
    out = {
        "cupy __cuda_array_interface__": median_us(lambda: dev.__cuda_array_interface__),
        "pointerGetAttributes(device)": median_us(lambda: rt.pointerGetAttributes(dev.data.ptr)),
        "pointerGetAttributes(host)": median_us(lambda: rt.pointerGetAttributes(host.ctypes.data)),
        "streamSynchronize(legacy)": median_us(lambda: rt.streamSynchronize(1)),
    }
    return out


# A copy's moments in order, from the Python call to its return (us between neighbours).
LEGS = ("into C++", "memory views", "route", "GIL and streams", "to the engine's lock",
        "in engine", "return to back")


def one(engine, dst, src, gap):
    """A copy after `gap` seconds idle: the us of each of LEGS."""
    time.sleep(gap)
    t0 = time.monotonic_ns()
    engine.copy(dst, src)
    t1 = time.monotonic_ns()
    s = engine.stats()
    call, last = s["last_call_ns"], s["last_copy_ns"]
    marks = [t0, call["entered"], call["viewed"], call["routed"], call["waited"],
             last["arrived"], last["finished"], t1]
    return tuple((b - a) / 1e3 for a, b in zip(marks, marks[1:]))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--smoke", action="store_true",
                   help="the fake device and stand-ins for CuPy and PyTorch; measures nothing")
    args = p.parse_args()
    global cupy, torch, xferlab
    if args.smoke:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        from bench_module import fake_frameworks
        fake_frameworks.install()
    import cupy
    import torch
    import xferlab
    sizes, gaps = ((4 * MiB, MiB), (0.0, 0.01)) if args.smoke else ((1024 * MiB, 16 * MiB),
                                                                    (0.0, 0.2, 1.5))
    engine = xferlab.Engine(device=0, measure=True, direct_below=0)
    print(f"xferlab {xferlab.__version__}; {engine.stats()['note']}")
    for n in sizes:
        host = np.full(n, 3, dtype=np.uint8)
        targets = {"cupy": cupy.empty(n, dtype=cupy.uint8),
                   "torch": torch.empty(n, dtype=torch.uint8, device="cuda:0")}
        for name, dst in targets.items():
            engine.copy(dst, host)  # warm-up, untimed
        print(f"\n== {n // MiB} MiB: us, medians of {args.repeats} (min-max)")
        for name, value in steps(targets["cupy"], host).items():
            print(f"  {name:<34} {value:8.1f}")
        for name, dst in targets.items():
            for gap in gaps:
                rows = [one(engine, dst, host, gap) for _ in range(args.repeats)]
                cols = list(zip(*rows))
                text = ", ".join(
                    f"{label} {statistics.median(c):.0f} ({min(c):.0f}-{max(c):.0f})"
                    for label, c in zip(LEGS, cols))
                print(f"  {name:<6} after {gap:g} s idle: {text}")
        torch.cuda.synchronize()
    engine.close()


if __name__ == "__main__":
    main()
