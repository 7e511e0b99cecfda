"""Section small: one thread, 4 KiB to 32 MiB: time per copy of a plain cudaMemcpy from the
same pageable buffer, the same followed by a device synchronize (a pageable cudaMemcpy to a
device may return before its bytes arrive; xferlab.copy returns after), xferlab.copy (direct
below its threshold), an engine that stages every copy (Engine(direct_below=0)): where staging
starts to pay; and xferlab.copy between two host buffers (the module's own cost per call)."""
import random
import statistics
import time

import numpy as np

from .common import KiB, MiB, progress, size_text


def run(ctx, results):
    trials = ctx.trials
    cupy, xferlab, memcpy = ctx.cupy, ctx.xferlab, ctx.memcpy
    sizes = [4 * KiB, 16 * KiB, 64 * KiB, 256 * KiB, 512 * KiB, MiB, 2 * MiB, 4 * MiB, 6 * MiB,
             8 * MiB, 12 * MiB, 16 * MiB, 32 * MiB]
    host = np.full(32 * MiB, 3, dtype=np.uint8)
    host2 = np.full(32 * MiB, 4, dtype=np.uint8)
    dev = cupy.empty(32 * MiB, dtype=cupy.uint8)
    staged_engine = xferlab.Engine(device=0, direct_below=0)
    rows = results.setdefault("small", [])

    def methods(n):
        h, d = host[:n], dev[:n]
        return {
            "cudaMemcpy": (lambda: memcpy.h2d(d.data.ptr, h.ctypes.data, n),
                           lambda: memcpy.d2h(h.ctypes.data, d.data.ptr, n)),
            "cudaMemcpy+sync": (lambda: (memcpy.h2d(d.data.ptr, h.ctypes.data, n),
                                         cupy.cuda.runtime.deviceSynchronize()),
                                lambda: (memcpy.d2h(h.ctypes.data, d.data.ptr, n),
                                         cupy.cuda.runtime.deviceSynchronize())),
            "host xferlab.copy": (lambda: xferlab.copy(host2[:n], h),
                                  lambda: xferlab.copy(h, host2[:n])),
            "xferlab.copy": (lambda: xferlab.copy(d, h), lambda: xferlab.copy(h, d)),
            "staged (direct_below=0)": (lambda: staged_engine.copy(d, h),
                                        lambda: staged_engine.copy(h, d)),
        }

    for n in sizes:  # warm-up
        for fns in methods(n).values():
            for fn in fns:
                fn()
    # Paired: every round times each method once, in a shuffled order, copy by copy; a trial's
    # figure is the median of its rounds. A disturbance of the machine then lands on all methods
    # of the round alike instead of on one method's block of copies.
    for trial in range(trials):
        order = [(n, d) for n in sizes for d in ("h2d", "d2h")]
        rnd = random.Random(100 + trial)
        rnd.shuffle(order)
        for n, direction in order:
            fns = {name: f[0 if direction == "h2d" else 1] for name, f in methods(n).items()}
            names = list(fns)
            rounds = max(20, min(400, int(16 * MiB // n)))
            per = {name: [] for name in names}
            for _ in range(rounds):
                rnd.shuffle(names)
                for name in names:
                    fn = fns[name]
                    t0 = time.perf_counter_ns()
                    fn()
                    per[name].append(time.perf_counter_ns() - t0)
            for name, ns in per.items():
                rows.append({"trial": trial, "bytes": n, "direction": direction, "method": name,
                             "reps": rounds, "us_per_copy": statistics.median(ns) / 1e3,
                             "us_p90": sorted(ns)[int(0.9 * (len(ns) - 1))] / 1e3})
        progress("small", trial, trials)
    staged_engine.close()
    results["small_summary"] = print_summary(rows, trials)


def print_summary(rows, trials):
    print(f"\n== small copies, one thread: microseconds per copy (each trial: the median copy of "
          f"rounds that time every method once, paired), median of {trials} trials; "
          "x = against cudaMemcpy, xs = against cudaMemcpy+sync (max over trials)")
    sizes = sorted({r["bytes"] for r in rows})
    print(f"{'size':>8} {'dir':>4} {'memcpy':>8} {'+sync':>8} {'xferlab':>8} {'x':>12} "
          f"{'xs':>12} {'staged':>8} {'x':>12} {'host':>6}")
    summary = []
    med = statistics.median
    for n in sizes:
        for direction in ("h2d", "d2h"):
            def per(m):
                return {r["trial"]: r["us_per_copy"] for r in rows
                        if r["bytes"] == n and r["direction"] == direction and r["method"] == m}
            base, synced = per("cudaMemcpy"), per("cudaMemcpy+sync")
            x, st, host = per("xferlab.copy"), per("staged (direct_below=0)"), per(
                "host xferlab.copy")
            rx = [x[t] / base[t] for t in base]
            rxs = [x[t] / synced[t] for t in synced]
            rs = [st[t] / base[t] for t in base]
            print(f"{size_text(n):>8} {direction:>4} {med(base.values()):8.1f} "
                  f"{med(synced.values()):8.1f} {med(x.values()):8.1f} "
                  f"{med(rx):5.2f} ({max(rx):4.2f}) {med(rxs):5.2f} ({max(rxs):4.2f}) "
                  f"{med(st.values()):8.1f} {med(rs):5.2f} ({max(rs):4.2f}) "
                  f"{med(host.values()):6.1f}")
            summary.append({"bytes": n, "direction": direction,
                            "cudaMemcpy_us": med(base.values()),
                            "cudaMemcpy_sync_us": med(synced.values()),
                            "xferlab_us": med(x.values()), "staged_us": med(st.values()),
                            "host_xferlab_us": med(host.values()),
                            "x_median": med(rx), "x_max": max(rx),
                            "x_sync_median": med(rxs), "x_sync_max": max(rxs),
                            "staged_x_median": med(rs), "staged_x_max": max(rs)})
    return summary
