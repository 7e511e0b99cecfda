"""Sections sweep, sweep4 and sizes: engine settings side by side (key=value, as Engine() takes
them: common.parse_settings), each engine in a registry of its own, against the page-locked
rate of the same trial.
  sweep   one caller, 1 GiB (the sizes section's settings when none are given)
  sweep4  four callers sharing one engine per setting
  sizes   one caller at several sizes per setting, every size in every trial: a line through time
          per copy against size splits a shortfall into a rate (the slope) and a cost per copy
          (the intercept); with measure=True the engine times a copy's parts too."""
import random
import statistics
import time

import numpy as np

from .common import (GiB, Buffers, band, make_engine, progress, setting_label, size_text,
                     timed_threads)

DEFAULT_SWEEP = [(("threads", t), ("chunk", c)) for t in (4, 8, 12) for c in ("1MiB", "2MiB")]


def copy_fn(ctx, b, engine, h2d, n=None):
    """One copy of the first `n` bytes (default: all) of b's buffers: page-locked cudaMemcpy
    when `engine` is None, else engine.copy of the pageable buffer."""
    n = b.n if n is None else n
    if engine is None:
        return (lambda: ctx.memcpy.h2d(b.cupy.data.ptr, b.pinned.ctypes.data, n)) if h2d \
            else (lambda: ctx.memcpy.d2h(b.pinned.ctypes.data, b.cupy.data.ptr, n))
    dev, host = (b.cupy, b.pageable) if n == b.n else (b.cupy[:n], b.pageable[:n])
    return (lambda: engine.copy(dev, host)) if h2d else (lambda: engine.copy(host, dev))


def engines_of(ctx, settings, **extra):
    return {s: make_engine(ctx.xferlab, s, f"sweep{i}", **extra) for i, s in enumerate(settings)}


def print_ratios(rows, settings, setting_key="setting"):
    """Per direction the pinned median, then each setting's ratios to the pinned rate of its
    trial (median, min-max)."""
    for direction in ("h2d", "d2h"):
        at = [r for r in rows if r["direction"] == direction]
        pinned = {r["trial"]: r["GBps"] for r in at if r[setting_key] is None}
        print(f"{direction}: pinned {statistics.median(pinned.values()):.1f} GB/s")
        for s in settings:
            x = [r["GBps"] / pinned[r["trial"]] for r in at if r[setting_key] == setting_label(s)]
            print(f"  {setting_label(s)}: {band(x)}")


def run_sweep(ctx, results, settings):
    """One caller, one engine per setting."""
    settings = settings or DEFAULT_SWEEP
    b = Buffers(ctx.cupy, ctx.torch, ctx.n, 9)
    rows = results.setdefault("sweep", [])
    engines = engines_of(ctx, settings)
    for e in [None] + list(engines.values()):  # warm-up
        for h2d in (True, False):
            copy_fn(ctx, b, e, h2d)()
    for trial in range(ctx.trials):
        order = [(d, s) for d in ("h2d", "d2h") for s in [None] + settings]
        random.Random(200 + trial).shuffle(order)
        for direction, s in order:
            fn = copy_fn(ctx, b, engines.get(s), direction == "h2d")
            t0 = time.perf_counter()
            for _ in range(ctx.copies):
                fn()
            rows.append({"trial": trial, "direction": direction,
                         "setting": setting_label(s) if s else None,
                         "GBps": ctx.copies * ctx.n / (time.perf_counter() - t0) / 1e9})
        progress("sweep", trial, ctx.trials)
    print("\n== one caller, one engine per setting: x the page-locked cudaMemcpy of the same "
          "trial (median, min-max)")
    print_ratios(rows, settings)
    results["sweep_engines"] = {setting_label(s): e.stats()["note"] for s, e in engines.items()}
    for e in engines.values():
        e.close()


def run_sweep4(ctx, results, settings):
    """Four callers, each its own buffers, sharing one engine per setting, against four callers'
    page-locked cudaMemcpy of the same trial."""
    pool = [Buffers(ctx.cupy, ctx.torch, ctx.n, s + 11) for s in range(4)]
    rows = results.setdefault("sweep4", [])
    engines = engines_of(ctx, settings)

    def fn(s, h2d):
        if s is None:
            return ctx.memcpy.pinned_fns()[0 if h2d else 1]
        e = engines[s]
        return (lambda b: e.copy(b.cupy, b.pageable)) if h2d else \
            (lambda b: e.copy(b.pageable, b.cupy))

    for s in [None] + settings:  # warm-up
        for h2d in (True, False):
            timed_threads(fn(s, h2d), pool, 1)
    for trial in range(ctx.trials):
        order = [(d, s) for d in ("h2d", "d2h") for s in [None] + settings]
        random.Random(400 + trial).shuffle(order)
        for direction, s in order:
            took = timed_threads(fn(s, direction == "h2d"), pool, ctx.copies)
            rows.append({"trial": trial, "direction": direction,
                         "setting": setting_label(s) if s else None,
                         "GBps": 4 * ctx.copies * ctx.n / took / 1e9})
        progress("sweep4", trial, ctx.trials)
    print("\n== four callers, one engine per setting: x four callers' page-locked cudaMemcpy of "
          "the same trial (median, min-max)")
    print_ratios(rows, settings)
    for e in engines.values():
        e.close()


def fit_line(xs, ys):
    """Least squares y = a + b x: (a, b)."""
    mx, my = statistics.mean(xs), statistics.mean(ys)
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    return my - b * mx, b


EDGE_KEYS = ("to_first_dma_us", "dma_span_us", "after_last_dma_us", "link_starved_us")


def edge_totals(engine):
    """The engine's edges summed over its copies so far (stats() gives means), in us."""
    e = engine.stats()["edges"] if engine is not None else None
    if not e:
        return dict.fromkeys(EDGE_KEYS, 0.0)
    return {k: e[k] * e["copies"] for k in EDGE_KEYS}


def run_sizes(ctx, results, sizes, settings):
    """One caller, every size in every trial (interleaved), fitted per trial to a line; every
    engine measures (measure=True), so a copy's parts are read too."""
    top = max(sizes)
    b = Buffers(ctx.cupy, ctx.torch, top, 21)
    rows = results.setdefault("sizes", [])
    engines = engines_of(ctx, settings, direct_below=0, measure=True)

    def fn(s, h2d, n):
        return copy_fn(ctx, b, engines.get(s), h2d, n)

    for s in [None] + settings:  # warm-up
        for h2d in (True, False):
            fn(s, h2d, top)()
    for trial in range(ctx.trials):
        order = [(d, s, n) for d in ("h2d", "d2h") for s in [None] + settings for n in sizes]
        random.Random(500 + trial).shuffle(order)
        for direction, s, n in order:
            f = fn(s, direction == "h2d", n)
            reps = max(2, (3 * GiB) // n)
            before = edge_totals(engines.get(s))
            t0 = time.perf_counter()
            for _ in range(reps):
                f()
            seconds = (time.perf_counter() - t0) / reps
            after = edge_totals(engines.get(s))
            rows.append({"trial": trial, "direction": direction,
                         "setting": setting_label(s) if s else None, "bytes": n,
                         "seconds_per_copy": seconds,
                         **{k: (after[k] - before[k]) / reps for k in after}})
        progress("sizes", trial, ctx.trials)
    check_bytes(ctx, b, engines, top)
    for e in engines.values():
        e.close()
    results["sizes_fit"] = print_sizes(rows, sizes, settings, ctx.trials)


def check_bytes(ctx, b, engines, top):
    """Every setting once more each way through a fresh pattern: the bytes arrived."""
    cupy = ctx.cupy
    for index, (s, e) in enumerate(engines.items()):
        seed = np.random.default_rng(index).integers(0, 256, 1_000_003, dtype=np.uint8)
        np.copyto(b.pageable, np.resize(seed, top))  # a period of a prime: no offset hides
        e.copy(b.cupy, b.pageable)
        assert bool((b.cupy == cupy.asarray(b.pageable)).all()), f"{s}: to the device"
        b.pageable[...] = 0
        e.copy(b.pageable, b.cupy)
        assert bool((b.cupy == cupy.asarray(b.pageable)).all()), f"{s}: from the device"


def print_sizes(rows, sizes, settings, trials):
    print("\n== one caller at several sizes, every size in every trial: x the page-locked "
          "cudaMemcpy of the same size and trial (median, min-max; k/N: faster than the first "
          "setting in k of N trials); per trial a line through time per copy against size: its "
          "slope x pinned's and its intercept, the cost per copy")
    med = statistics.median
    fits = []
    for direction in ("h2d", "d2h"):
        def per(s):
            return {(r["trial"], r["bytes"]): r["seconds_per_copy"] for r in rows
                    if r["direction"] == direction and r["setting"] == s}
        pinned = per(None)
        pinned_fit = {t: fit_line(sizes, [pinned[(t, n)] for n in sizes]) for t in range(trials)}
        print(f"{direction}: pinned {med(1e-9 / f[1] for f in pinned_fit.values()):.1f} GB/s, "
              f"{med(1e6 * f[0] for f in pinned_fit.values()):.0f} us per copy")
        first = per(setting_label(settings[0]))
        for s in settings:
            mine = per(setting_label(s))
            cells = []
            for n in sizes:
                x = [pinned[(t, n)] / mine[(t, n)] for t in range(trials)]
                wins = sum(mine[(t, n)] < first[(t, n)] for t in range(trials))
                cells.append(f"{size_text(n)} {band(x)}" +
                             (f" {wins}/{trials}" if s != settings[0] else ""))
            fit = {t: fit_line(sizes, [mine[(t, n)] for n in sizes]) for t in range(trials)}
            rate = [pinned_fit[t][1] / fit[t][1] for t in range(trials)]
            cost = [1e6 * fit[t][0] for t in range(trials)]
            print(f"  {setting_label(s)}: " + ", ".join(cells))
            print(f"    slope {band(rate)} x pinned's, cost per copy {med(cost):.0f} us "
                  f"({min(cost):.0f}-{max(cost):.0f})")
            fits.append({"direction": direction, "setting": setting_label(s),
                         "x_pinned_slope": rate, "cost_per_copy_us": cost})
    print("a copy's parts (median over trials, us): before its first DMA | from it to its last "
          "DMA seen done (pinned's time over that span) | after its last DMA [the link waiting "
          "for the helpers: no DMA in flight while the copy was in the engine]")
    for direction in ("h2d", "d2h"):
        pinned = {(r["trial"], r["bytes"]): r["seconds_per_copy"] for r in rows
                  if r["direction"] == direction and r["setting"] is None}
        for s in settings:
            mine = [r for r in rows
                    if r["direction"] == direction and r["setting"] == setting_label(s)]
            cells = []
            for n in sizes:
                at = [r for r in mine if r["bytes"] == n]
                busy = [pinned[(r["trial"], n)] / max(r["dma_span_us"], 1e-9) * 1e6 for r in at]
                cells.append(f"{size_text(n)} {med(r['to_first_dma_us'] for r in at):.0f} | "
                             f"{med(r['dma_span_us'] for r in at):.0f} ({med(busy):.3f}) | "
                             f"{med(r['after_last_dma_us'] for r in at):.0f} "
                             f"[{med(r['link_starved_us'] for r in at):.0f}]")
            print(f"  {direction} {setting_label(s)}: " + ", ".join(cells))
    return fits
