#!/usr/bin/env python3
"""The Python module's benchmark (issue #27): a plain Python program, no `xferlab run`.

    PYTHONPATH=build/python python3 tools/bench-module.py [--bytes 1GiB] [--trials 5]
                                                         [--json FILE] [--skip SECTION ...]

Sections, each with trials interleaved (every method once per trial, in a shuffled order) and
nothing timed before a method's first (warm-up) copy:
  large   NumPy pageable -> CuPy array and torch tensor and back, 1 and 4 threads, each thread
          its own buffers; aggregate GB/s of xferlab.copy, CuPy ndarray.set/get, torch copy_,
          and cudaMemcpy from page-locked memory in the same process (the rate to reach).
  small   one thread, 4 KiB to 32 MiB: time per copy of a plain cudaMemcpy from the same
          pageable buffer, the same followed by a device synchronize (a pageable cudaMemcpy
          to a device may return before its bytes arrive; xferlab.copy returns after), xferlab.copy
          (direct below its threshold), an engine that stages every copy
          (Engine(direct_below=0)): where staging starts to pay; and xferlab.copy between two
          host buffers (the module's own cost per call, no device involved).
  sweep   one thread, 1 GiB: Engine(threads=T, chunk=C, buffers=B) against the pinned rate, to
          show what moves a single caller's rate (--sweep picks the settings).
  sweep4  (only with --sweep4) four threads sharing one engine per setting, the same way.
  sizes   (only with --sizes) one caller at several sizes per setting, every size in every
          trial: a line through time per copy against size splits a shortfall into a rate (the
          slope) and a cost per copy (the intercept).
Prints a table per section and writes everything (every trial's value) as JSON.
"""
import argparse
import json
import random
import statistics
import sys
import threading
import time

import numpy as np

import xferlab

try:
    import cupy
    import torch
except ImportError as e:  # the benchmark compares against both frameworks
    sys.exit(f"bench-module.py needs CuPy and PyTorch: {e}")

GiB = 1 << 30
MiB = 1 << 20
KiB = 1 << 10


def size_text(n):
    for unit, name in ((GiB, "GiB"), (MiB, "MiB"), (KiB, "KiB")):
        if n >= unit and n % unit == 0:
            return f"{n // unit} {name}"
    return f"{n} B"


def memcpy(dst_ptr, src_ptr, n, kind):
    cupy.cuda.runtime.memcpy(dst_ptr, src_ptr, n, kind)


H2D = cupy.cuda.runtime.memcpyHostToDevice
D2H = cupy.cuda.runtime.memcpyDeviceToHost


class Buffers:
    """One thread's buffers: pageable and page-locked host memory, a CuPy array, a tensor."""

    def __init__(self, n, seed):
        self.n = n
        self.pageable = np.empty(n, dtype=np.uint8)
        self.pageable[...] = seed  # first touch here, never timed
        self._pinned_mem = cupy.cuda.alloc_pinned_memory(n)
        self.pinned = np.frombuffer(self._pinned_mem, dtype=np.uint8, count=n)
        self.pinned[...] = seed
        self.cupy = cupy.empty(n, dtype=cupy.uint8)
        self.torch = torch.empty(n, dtype=torch.uint8, device="cuda:0")
        self.host_tensor = torch.from_numpy(self.pageable)


def large_methods():
    """name -> (h2d(b), d2h(b)): one copy of one thread's buffers, returning when done."""
    def sync():
        cupy.cuda.get_current_stream().synchronize()

    return {
        "cudaMemcpy page-locked": (
            lambda b: memcpy(b.cupy.data.ptr, b.pinned.ctypes.data, b.n, H2D),
            lambda b: memcpy(b.pinned.ctypes.data, b.cupy.data.ptr, b.n, D2H)),
        "xferlab.copy -> cupy": (lambda b: xferlab.copy(b.cupy, b.pageable),
                                 lambda b: xferlab.copy(b.pageable, b.cupy)),
        "xferlab.copy -> torch": (lambda b: xferlab.copy(b.torch, b.pageable),
                                  lambda b: xferlab.copy(b.pageable, b.torch)),
        "cupy ndarray.set/get": (lambda b: (b.cupy.set(b.pageable), sync()),
                                 lambda b: (b.cupy.get(out=b.pageable), sync())),
        "torch copy_": (lambda b: (b.torch.copy_(b.host_tensor), torch.cuda.synchronize()),
                        lambda b: (b.host_tensor.copy_(b.torch), torch.cuda.synchronize())),
    }


def copy_fn(b, engine, h2d, n=None):
    """One copy of the first `n` bytes (default: all) of b's buffers, as a call without
    arguments: page-locked cudaMemcpy when `engine` is None, else engine.copy of the pageable
    buffer."""
    n = b.n if n is None else n
    if engine is None:
        return (lambda: memcpy(b.cupy.data.ptr, b.pinned.ctypes.data, n, H2D)) if h2d \
            else (lambda: memcpy(b.pinned.ctypes.data, b.cupy.data.ptr, n, D2H))
    dev, host = (b.cupy, b.pageable) if n == b.n else (b.cupy[:n], b.pageable[:n])
    return (lambda: engine.copy(dev, host)) if h2d else (lambda: engine.copy(host, dev))


def timed_threads(fn, buffers, copies):
    """Every thread makes `copies` copies after a common start; returns the wall seconds from
    the start to the last thread's end."""
    start = threading.Barrier(len(buffers) + 1)
    errors = []

    def work(b):
        try:
            start.wait()
            for _ in range(copies):
                fn(b)
        except Exception as e:  # noqa: BLE001 - raised below
            errors.append(e)

    ts = [threading.Thread(target=work, args=(b,)) for b in buffers]
    for t in ts:
        t.start()
    start.wait()
    t0 = time.perf_counter()
    for t in ts:
        t.join()
    took = time.perf_counter() - t0
    if errors:
        raise errors[0]
    return took


def bench_large(n, trials, copies, results):
    methods = large_methods()
    pool = [Buffers(n, s + 1) for s in range(4)]
    rows = results.setdefault("large", [])
    for threads in (1, 4):
        bufs = pool[:threads]
        for name, fns in methods.items():  # warm-up: the first copy after allocation
            for fn in fns:
                timed_threads(fn, bufs, 1)
    for trial in range(trials):
        order = [(t, d, m) for t in (1, 4) for d in ("h2d", "d2h") for m in methods]
        random.Random(trial).shuffle(order)
        for threads, direction, name in order:
            fn = methods[name][0 if direction == "h2d" else 1]
            took = timed_threads(fn, pool[:threads], copies)
            gbps = threads * copies * n / took / 1e9
            rows.append({"trial": trial, "threads": threads, "direction": direction,
                         "method": name, "bytes": n, "copies": copies, "seconds": took,
                         "GBps": gbps})
        print(f"large: trial {trial + 1} of {trials} done", file=sys.stderr, flush=True)
    # the bytes arrived: the last copies were d2h or h2d of the same pattern
    assert all(b.cupy[:16].get().tolist() == [b.pageable[0]] * 16 for b in pool)


def summarize_large(rows):
    out = []
    key = lambda r: (r["threads"], r["direction"])  # noqa: E731
    for threads in (1, 4):
        for direction in ("h2d", "d2h"):
            sel = [r for r in rows if key(r) == (threads, direction)]
            pinned = {r["trial"]: r["GBps"] for r in sel if r["method"] == "cudaMemcpy page-locked"}
            for method in dict.fromkeys(r["method"] for r in sel):
                vals = {r["trial"]: r["GBps"] for r in sel if r["method"] == method}
                ratios = [vals[t] / pinned[t] for t in sorted(vals)]
                gb = list(vals.values())
                out.append({
                    "threads": threads, "direction": direction, "method": method,
                    "GBps_median": statistics.median(gb), "GBps_min": min(gb),
                    "GBps_max": max(gb),
                    "cv": statistics.pstdev(gb) / statistics.mean(gb),
                    "x_pinned_median": statistics.median(ratios),
                    "x_pinned_min": min(ratios), "x_pinned_max": max(ratios),
                    "trials": len(gb)})
    return out


def print_large(summary, trials):
    print(f"\n== large copies: aggregate GB/s, median of {trials} interleaved trials "
          "(min-max), and x the page-locked cudaMemcpy of the same trial")
    print(f"{'threads':>7} {'dir':>4} {'method':<24} {'GB/s':>7} {'(min-max)':>15} "
          f"{'x pinned':>9} {'(min-max)':>13} {'CV':>6}")
    for s in summary:
        print(f"{s['threads']:>7} {s['direction']:>4} {s['method']:<24} {s['GBps_median']:7.1f} "
              f"({s['GBps_min']:6.1f}-{s['GBps_max']:5.1f}) {s['x_pinned_median']:9.3f} "
              f"({s['x_pinned_min']:.3f}-{s['x_pinned_max']:.3f}) {100 * s['cv']:5.1f}%")


def bench_small(trials, results):
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
            "cudaMemcpy": (lambda: memcpy(d.data.ptr, h.ctypes.data, n, H2D),
                           lambda: memcpy(h.ctypes.data, d.data.ptr, n, D2H)),
            "cudaMemcpy+sync": (lambda: (memcpy(d.data.ptr, h.ctypes.data, n, H2D),
                                         cupy.cuda.runtime.deviceSynchronize()),
                                lambda: (memcpy(h.ctypes.data, d.data.ptr, n, D2H),
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
        print(f"small: trial {trial + 1} of {trials} done", file=sys.stderr, flush=True)
    staged_engine.close()


def print_small(rows, trials):
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


def bench_source(n, trials, copies, results):
    """One caller, the shared engine: does the host memory's kind or the copy's size move the
    rate? NumPy's own buffer (NumPy asks for transparent huge pages), an anonymous mapping with
    huge pages refused (as malloc's memory under THP "madvise"), and a quarter of the size."""
    import mmap
    m = mmap.mmap(-1, n)
    m.madvise(mmap.MADV_NOHUGEPAGE)
    plain = np.frombuffer(m, dtype=np.uint8)
    plain[...] = 5
    hosts = {"numpy 1 GiB": np.full(n, 5, dtype=np.uint8), "mmap no THP 1 GiB": plain,
             "numpy 1/4 size": np.full(n // 4, 5, dtype=np.uint8)}
    pinned = Buffers(n, 5)
    dev = cupy.empty(n, dtype=cupy.uint8)
    rows = results.setdefault("source", [])

    def fns(name, h2d):
        if name == "pinned":
            return (lambda: memcpy(dev.data.ptr, pinned.pinned.ctypes.data, n, H2D)) if h2d \
                else (lambda: memcpy(pinned.pinned.ctypes.data, dev.data.ptr, n, D2H))
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


def sweep_configs(text):
    """"T:C[:B[:D[:P[:L[:R]]]]],..." (helpers, chunk, buffers per helper, bytes per DMA: the
    helpers fill DMA-sized shared buffers together; 0 or absent: one chunk per DMA; C and D a
    number of MiB or a size such as 512KiB; C 0: "auto"; P 1: taper, 0 or absent: not; L:
    linger_us, absent: 0; R 1: ramp, 0 or absent: not) or "" for the default grid."""
    if not text:
        return [(t, c, 2, 0, 0, 0, 0) for t in (2, 4, 6, 8, 12) for c in (MiB, 4 * MiB, 16 * MiB)]
    out = []
    for item in text.split(","):
        t, c, *rest = item.split(":")
        if int(t) == 0:
            # Every setting's engine stays open for the whole sweep, so an "auto" one would share
            # the CPUs with the others through the engine registry (0.45-0.53x on H200).
            sys.exit(f"bench-module: {item}: name the helpers' count; \"auto\" would share the "
                     f"CPUs with the sweep's other engines (the large section measures auto)")
        d = mib_or_size(rest[1]) if len(rest) > 1 else 0
        rest = [int(x) for i, x in enumerate(rest) if i != 1]
        b, taper, linger, ramp = (rest + [2, 0, 0, 0][len(rest):])[:4]
        out.append((int(t), mib_or_size(c), b, d, taper, linger, ramp))
    return out


def mib_or_size(text):
    """A sweep setting's chunk or DMA: a number of MiB ("8") or a size ("512KiB")."""
    return int(text) * MiB if text.isdigit() else parse_size(text)


def make_engine(cfg, **extra):
    """The engine of a sweep setting (sweep_configs)."""
    t, c, nb, d, p, linger, ramp = cfg
    return xferlab.Engine(device=0, threads=t, chunk=c or "auto", buffers=nb, dma=d or "chunk",
                          taper=bool(p), linger_us=linger, ramp=bool(ramp), **extra)


def bench_sweep(n, trials, copies, results, configs):
    """One caller, one engine per setting (helpers, chunk, buffers), against the pinned rate.
    The page-locked buffers in flight are helpers x buffers x chunk."""
    b = Buffers(n, 9)
    rows = results.setdefault("sweep", [])
    engines = {cfg: make_engine(cfg) for cfg in configs}
    for e in [None] + list(engines.values()):  # warm-up
        for h2d in (True, False):
            copy_fn(b, e, h2d)()
    for trial in range(trials):
        order = [(d, cfg) for d in ("h2d", "d2h") for cfg in [None] + configs]
        random.Random(200 + trial).shuffle(order)
        for direction, cfg in order:
            fn = copy_fn(b, engines.get(cfg), direction == "h2d")
            t0 = time.perf_counter()
            for _ in range(copies):
                fn()
            gbps = copies * n / (time.perf_counter() - t0) / 1e9
            rows.append({"trial": trial, "direction": direction,
                         "threads": cfg[0] if cfg else None, "chunk": cfg[1] if cfg else None,
                         "buffers": cfg[2] if cfg else None, "dma": cfg[3] if cfg else None,
                         "taper": cfg[4] if cfg else None, "linger": cfg[5] if cfg else None,
                         "ramp": cfg[6] if cfg else None,
                         "GBps": gbps})
        print(f"sweep: trial {trial + 1} of {trials} done", file=sys.stderr, flush=True)
    stats = {k: f"{s['summary']}; {s['pieces']} pieces"
             for k, s in ((k, e.stats()) for k, e in engines.items())}
    for e in engines.values():
        e.close()
    return stats


def parse_size(text):
    units = {"GiB": GiB, "MiB": MiB, "KiB": KiB}
    return next((int(text[:-3]) * u for s, u in units.items() if text.endswith(s)), None) or \
        int(text)


def fit_line(xs, ys):
    """Least squares y = a + b x: (a, b)."""
    mx, my = statistics.mean(xs), statistics.mean(ys)
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    return my - b * mx, b


def bench_sizes(sizes, trials, results, configs):
    """One caller, every size in every trial (interleaved): the time per copy against its size,
    fitted per trial to a line, splits a setting's shortfall into a rate (the slope: what a long
    copy reaches) and a cost per copy (the intercept: filling and draining the pipeline, waking
    the helpers, returning to the caller)."""
    top = max(sizes)
    b = Buffers(top, 21)
    rows = results.setdefault("sizes", [])
    engines = {cfg: make_engine(cfg, direct_below=0) for cfg in configs}

    def fn(cfg, h2d, n):
        return copy_fn(b, engines.get(cfg), h2d, n)

    for cfg in [None] + configs:  # warm-up
        for h2d in (True, False):
            fn(cfg, h2d, top)()
    for trial in range(trials):
        order = [(d, cfg, n) for d in ("h2d", "d2h") for cfg in [None] + configs for n in sizes]
        random.Random(500 + trial).shuffle(order)
        for direction, cfg, n in order:
            f = fn(cfg, direction == "h2d", n)
            reps = max(2, (3 * GiB) // n)
            before = edge_totals(engines.get(cfg))
            t0 = time.perf_counter()
            for _ in range(reps):
                f()
            seconds = (time.perf_counter() - t0) / reps
            after = edge_totals(engines.get(cfg))
            rows.append({"trial": trial, "direction": direction, "config": cfg, "bytes": n,
                         "seconds_per_copy": seconds,
                         **{k: (after[k] - before[k]) / reps for k in after}})
        print(f"sizes: trial {trial + 1} of {trials} done", file=sys.stderr, flush=True)
    # The bytes arrived: every setting once more each way through a fresh pattern.
    for index, cfg in enumerate(configs):
        seed = np.random.default_rng(index).integers(0, 256, 1_000_003, dtype=np.uint8)
        np.copyto(b.pageable, np.resize(seed, top))  # a period of a prime: no offset hides
        fn(cfg, True, top)()
        assert bool((b.cupy == cupy.asarray(b.pageable)).all()), f"{cfg}: to the device"
        b.pageable[...] = 0
        fn(cfg, False, top)()
        assert bool((b.cupy == cupy.asarray(b.pageable)).all()), f"{cfg}: from the device"
    for e in engines.values():
        e.close()
    print("\n== one caller at several sizes, every size in every trial: x the page-locked "
          "cudaMemcpy of the same size and trial (median, min-max; k/N: faster than the first "
          "setting in k of N trials); per trial a line through time per copy against size: its "
          "slope as GB/s (x pinned's) and its intercept, the cost per copy (median, min-max)")
    med = statistics.median
    fits = []
    for direction in ("h2d", "d2h"):
        def per(cfg):
            return {(r["trial"], r["bytes"]): r["seconds_per_copy"] for r in rows
                    if r["direction"] == direction and r["config"] == cfg}
        pinned = per(None)
        pinned_fit = {t: fit_line(sizes, [pinned[(t, n)] for n in sizes]) for t in range(trials)}
        print(f"{direction}: pinned {med(1e-9 / f[1] for f in pinned_fit.values()):.1f} GB/s, "
              f"{med(1e6 * f[0] for f in pinned_fit.values()):.0f} us per copy")
        first = per(configs[0])
        for cfg in configs:
            mine = per(cfg)
            cells = []
            for n in sizes:
                x = [pinned[(t, n)] / mine[(t, n)] for t in range(trials)]
                # Paired with the first setting: in how many trials this one was faster.
                wins = sum(mine[(t, n)] < first[(t, n)] for t in range(trials))
                cells.append(f"{size_text(n)} {med(x):.3f} ({min(x):.3f}-{max(x):.3f})"
                             + (f" {wins}/{trials}" if cfg != configs[0] else ""))
            fit = {t: fit_line(sizes, [mine[(t, n)] for n in sizes]) for t in range(trials)}
            rate = [pinned_fit[t][1] / fit[t][1] for t in range(trials)]
            cost = [1e6 * fit[t][0] for t in range(trials)]
            print(f"  {setting_label(cfg)}: " + ", ".join(cells))
            print(f"    slope {med(rate):.3f} ({min(rate):.3f}-{max(rate):.3f}) x pinned's, "
                  f"cost per copy {med(cost):.0f} us ({min(cost):.0f}-{max(cost):.0f})")
            fits.append({"direction": direction, "config": cfg, "x_pinned_slope": rate,
                         "cost_per_copy_us": cost})
    results["sizes_fit"] = fits
    print("a copy's parts (median over trials, us): before its first DMA | from it to its last "
          "DMA seen done, and pinned's time per copy over that span (1.000: the link never "
          "idled) | after its last DMA | [the link waiting for the helpers: every DMA issued "
          "finished while a buffer filled or emptied, the wait for the first DMA and the end "
          "after the last included; waits shorter than the time between two pieces unseen]")
    for direction in ("h2d", "d2h"):
        pinned = {(r["trial"], r["bytes"]): r["seconds_per_copy"] for r in rows
                  if r["direction"] == direction and r["config"] is None}
        for cfg in configs:
            mine = [r for r in rows if r["direction"] == direction and r["config"] == cfg]
            cells = []
            for n in sizes:
                at = [r for r in mine if r["bytes"] == n]
                busy = [pinned[(r["trial"], n)] / r["dma_span_us"] * 1e6 for r in at]
                cells.append(f"{size_text(n)} {med(r['to_first_dma_us'] for r in at):.0f} | "
                             f"{med(r['dma_span_us'] for r in at):.0f} ({med(busy):.3f}) | "
                             f"{med(r['after_last_dma_us'] for r in at):.0f} "
                             f"[{med(r['link_starved_us'] for r in at):.0f}]")
            print(f"  {direction} {setting_label(cfg)}: " + ", ".join(cells))


def edge_totals(engine):
    """The engine's edges summed over its copies so far (stats() gives means), in us."""
    keys = ("to_first_dma_us", "dma_span_us", "after_last_dma_us", "link_starved_us")
    if engine is None:
        return dict.fromkeys(keys, 0.0)
    e = engine.stats()["edges"]
    return {k: e[k] * e["copies"] for k in keys}


def setting_label(cfg):
    """An engine setting of the sweeps, (helpers, chunk, buffers, DMA), as its table row says it."""
    t, c, nb, d, p, linger, ramp = cfg
    dma = f"dma {size_text(d)}" if d else "dma = chunk"
    return (f"threads {t:>4} chunk {size_text(c) if c else 'auto':>7} buffers {nb} "
            f"{dma:>12}{' taper' if p else ''}{f' linger {linger} us' if linger else ''}"
            f"{' ramp' if ramp else ''}")


def ratios_to_pinned(rows, direction, same_setting):
    """Each trial's rate of the rows `same_setting` picks, over the pinned rate of that trial."""
    pinned = {r["trial"]: r["GBps"] for r in rows
              if r["direction"] == direction and same_setting(r) is None}
    return pinned, [r["GBps"] / pinned[r["trial"]] for r in rows
                    if r["direction"] == direction and same_setting(r) is True]


def print_setting_rows(rows, configs, setting_of, extra=lambda cfg: ""):
    """Per direction the pinned median, then each setting's ratios to the pinned rate of its
    trial (median, min-max); `setting_of(row)` is None for a pinned row."""
    for direction in ("h2d", "d2h"):
        for i, cfg in enumerate(configs):
            pinned, x = ratios_to_pinned(
                rows, direction, lambda r: None if setting_of(r) is None else setting_of(r) == cfg)
            if i == 0:
                print(f"{direction}: pinned {statistics.median(pinned.values()):.1f} GB/s")
            print(f"  {setting_label(cfg)}{extra(cfg)}: {statistics.median(x):.3f} "
                  f"({min(x):.3f}-{max(x):.3f})")


def bench_sweep4(n, trials, copies, results, configs):
    """Four callers, each its own buffers, sharing one engine per setting (as the seed's four
    threads share one), against four callers' page-locked cudaMemcpy of the same trial."""
    pool = [Buffers(n, s + 11) for s in range(4)]
    rows = results.setdefault("sweep4", [])
    engines = {cfg: make_engine(cfg) for cfg in configs}

    def fn(cfg, h2d):
        if cfg is None:
            return (lambda b: memcpy(b.cupy.data.ptr, b.pinned.ctypes.data, b.n, H2D)) if h2d \
                else (lambda b: memcpy(b.pinned.ctypes.data, b.cupy.data.ptr, b.n, D2H))
        e = engines[cfg]
        return (lambda b: e.copy(b.cupy, b.pageable)) if h2d else (lambda b: e.copy(b.pageable,
                                                                                   b.cupy))
    for cfg in [None] + configs:  # warm-up
        for h2d in (True, False):
            timed_threads(fn(cfg, h2d), pool, 1)
    for trial in range(trials):
        order = [(d, cfg) for d in ("h2d", "d2h") for cfg in [None] + configs]
        random.Random(400 + trial).shuffle(order)
        for direction, cfg in order:
            took = timed_threads(fn(cfg, direction == "h2d"), pool, copies)
            rows.append({"trial": trial, "direction": direction, "config": cfg,
                         "GBps": 4 * copies * n / took / 1e9})
        print(f"sweep4: trial {trial + 1} of {trials} done", file=sys.stderr, flush=True)
    print("\n== four callers, one engine of T helpers, chunk C, B buffers, DMA D: x four callers' "
          "page-locked cudaMemcpy of the same trial (median, min-max)")
    print_setting_rows(rows, configs, lambda r: r["config"])
    for e in engines.values():
        e.close()


def print_sweep(rows, stats):
    print("\n== one caller, 1 engine of T helpers and chunk C: x the page-locked cudaMemcpy of "
          "the same trial (median)")
    def setting_of(r):
        return None if r["threads"] is None else (r["threads"], r["chunk"], r["buffers"], r["dma"],
                                                  r["taper"], r["linger"], r.get("ramp", 0))

    def in_flight(cfg):
        t, c, nb, *_ = cfg
        return f" ({size_text(t * nb * c)} in flight)" if c else " (auto chunk)"

    print_setting_rows(rows, list(stats), setting_of, in_flight)
    print("helpers' time (both directions, all trials):")
    for cfg, summary in stats.items():
        print(f"  {setting_label(cfg)}: {summary}")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--bytes", default="1GiB")
    p.add_argument("--trials", type=int, default=5)
    p.add_argument("--copies", type=int, default=3, help="copies per thread and measurement")
    p.add_argument("--json", help="write every value here")
    settings = "T:C[:B[:D[:P[:L[:R]]]]],..."  # sweep_configs
    p.add_argument("--sweep", default="", metavar=settings,
                   help="the sweep's settings: helpers:chunk MiB or size[:buffers[:DMA MiB or size[:taper 0|1"
                        "[:linger us[:ramp 0|1]]]]], comma-separated")
    p.add_argument("--sweep4", default="", metavar=settings,
                   help="settings for four callers sharing one engine (section sweep4, run "
                        "only when given)")
    p.add_argument("--sizes", default="", metavar="SIZE,...",
                   help="section sizes (run only when given): one caller at these sizes, e.g. "
                        "128MiB,256MiB,1GiB,2GiB, with the settings of --sizes-sweep")
    p.add_argument("--sizes-sweep", default="12:1:4:8:0,12:1:4:8:1", metavar=settings,
                   help="the settings section sizes compares (default: the module's, with and "
                        "without taper, 12 helpers)")
    p.add_argument("--skip", nargs="*", default=[],
                   choices=["large", "small", "source", "sweep"])
    a = p.parse_args()
    n = parse_size(a.bytes)
    results = {"bytes": n, "trials": a.trials, "copies": a.copies,
               "xferlab": xferlab.__version__, "cupy": cupy.__version__,
               "torch": torch.__version__, "numpy": np.__version__,
               "device": cupy.cuda.runtime.getDeviceProperties(0)["name"].decode()}
    with xferlab.Engine(device=0) as e:  # as the shared engine resolves "auto"
        results["engine"] = e.stats()
    print(f"xferlab {xferlab.__version__} on {results['device']}; CuPy {cupy.__version__}, "
          f"PyTorch {torch.__version__}, NumPy {np.__version__}")
    print(f"shared engine: {results['engine']['note']}")
    if "large" not in a.skip:
        bench_large(n, a.trials, a.copies, results)
        results["large_summary"] = summarize_large(results["large"])
        print_large(results["large_summary"], a.trials)
    if "small" not in a.skip:
        bench_small(a.trials, results)
        results["small_summary"] = print_small(results["small"], a.trials)
    if "source" not in a.skip:
        bench_source(n, a.trials, a.copies, results)
    if "sweep" not in a.skip:
        stats = bench_sweep(n, a.trials, a.copies, results, sweep_configs(a.sweep))
        print_sweep(results["sweep"], stats)
        results["sweep_helpers"] = {" ".join(map(str, cfg)): s for cfg, s in stats.items()}
    if a.sweep4:
        bench_sweep4(n, a.trials, a.copies, results, sweep_configs(a.sweep4))
    if a.sizes:
        bench_sizes([parse_size(x) for x in a.sizes.split(",")], a.trials, results,
                    sweep_configs(a.sizes_sweep))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
