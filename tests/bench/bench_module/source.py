"""Section source: one caller, the shared engine: does the host memory's kind or the copy's
size move the rate? NumPy's own buffer (NumPy asks for transparent huge pages), an anonymous
mapping with huge pages refused (as malloc's memory under THP "madvise"), a quarter of the size."""
import mmap
import random
import statistics
import time

import numpy as np

from .common import Buffers


def run(ctx, results):
    """One caller, the shared engine: does the host memory's kind or the copy's size move the
    rate? NumPy's own buffer (NumPy asks for transparent huge pages), an anonymous mapping with
    huge pages refused (as malloc's memory under THP "madvise"), and a quarter of the size."""
    n, trials, copies, cupy, xferlab = ctx.n, ctx.trials, ctx.copies, ctx.cupy, ctx.xferlab
    m = mmap.mmap(-1, n)
    m.madvise(mmap.MADV_NOHUGEPAGE)
    plain = np.frombuffer(m, dtype=np.uint8)
    plain[...] = 5
    hosts = {"numpy 1 GiB": np.full(n, 5, dtype=np.uint8), "mmap no THP 1 GiB": plain,
             "numpy 1/4 size": np.full(n // 4, 5, dtype=np.uint8)}
    pinned = Buffers(cupy, ctx.torch, n, 5)
    dev = cupy.empty(n, dtype=cupy.uint8)
    rows = results.setdefault("source", [])

    def fns(name, h2d):
        if name == "pinned":
            return (lambda: ctx.memcpy.h2d(dev.data.ptr, pinned.pinned.ctypes.data, n)) if h2d \
                else (lambda: ctx.memcpy.d2h(pinned.pinned.ctypes.data, dev.data.ptr, n))
        h = hosts[name]
        d = dev[:h.nbytes]
        return (lambda: xferlab.copy(d, h)) if h2d else (lambda: xferlab.copy(h, d))

    names = ["pinned"] + list(hosts)
    for name in names:
        for h2d in (True, False):
            fns(name, h2d)()
    for trial in range(trials):
        order = [(d, nm) for d in ("h2d", "d2h") for nm in names]
        random.Random(300 + trial).shuffle(order)
        for direction, name in order:
            fn = fns(name, direction == "h2d")
            nbytes = n if name in ("pinned",) else hosts[name].nbytes
            reps = copies * (n // nbytes)
            t0 = time.perf_counter()
            for _ in range(reps):
                fn()
            rows.append({"trial": trial, "direction": direction, "source": name,
                         "GBps": reps * nbytes / (time.perf_counter() - t0) / 1e9})
    print("\n== one caller, the shared engine: GB/s by host memory (median of "
          f"{trials} trials, x pinned of the same trial)")
    for direction in ("h2d", "d2h"):
        base = {r["trial"]: r["GBps"] for r in rows
                if r["direction"] == direction and r["source"] == "pinned"}
        for name in names:
            v = [r for r in rows if r["direction"] == direction and r["source"] == name]
            g = statistics.median(r["GBps"] for r in v)
            x = [r["GBps"] / base[r["trial"]] for r in v]
            print(f"  {direction} {name:<20} {g:6.1f} GB/s  {statistics.median(x):.3f} "
                  f"({min(x):.3f}-{max(x):.3f})")
