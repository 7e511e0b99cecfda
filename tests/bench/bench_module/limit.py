"""Section limit (issue #58): the rate a staged copy to the device can reach on this host, from
parts this section measures itself, printed beside what xferlab.copy measured in the same trial.

The engine (stats() of an engine made as the shared one is) fills DMAs of D bytes from pieces
of C bytes with N helpers, into a ring of page-locked buffers, while one stream moves the DMAs.
The parts, each timed in every trial, S bytes in all:
  P    the reference: one cudaMemcpy of S bytes from page-locked memory
  L    the link in the engine's DMA size: back-to-back cudaMemcpyAsync of D bytes from a ring of
       page-locked buffers, one stream, synchronized once at the end
  Lw   the same while N threads fill other page-locked buffers (the helpers' load on memory)
  F1   one helper filling the buffers from pageable memory, C bytes a piece
  FN   N helpers filling together
  FNd  N helpers filling together while the link reads
Where the module is the test build's (xferlab._core._testing, build/python-testing), F1 and FN
are the engine's own C++ helpers filling its buffers with no DMA to wait for
(_testing.fill_alone: the engine's pieces, scheduling and wake-ups), and FNd is read from the
engine itself while it copies (Engine(measure=True).stats(): the bytes its helpers copied over
their time copying, x N); the Python threads' figures (F1py, FNpy, FNdpy) are printed beside
them. Elsewhere all three are Python threads' (numpy releases the GIL for a copy).
The model of one caller: the first DMA waits for its first buffer, filled by the helpers alone
(D / FN); then the pipeline runs at the slower of the link while they fill and their fill while
the link reads: link-bound, the DMAs follow each other (S / Lw); fill-bound, each DMA waits for
its fill and the last one follows the last fill ((S - D) / FNd + D / L):

    T1 = D / FN + max(S / Lw, (S - D) / FNd + D / L)

Four callers of S bytes each share the engine and the link: the same with 4 S. The limit, x the
reference, is (S / P) / T; the measured copy's is its rate / P's rate, paired by trial. The
measured engine's edges (its stats: the fill before the first DMA, the DMAs' span, the drain,
the time the link waited for the helpers) are printed with the model: a gap between model and
measurement that they do not explain is the engine's to find.

Issue #58's switches (SWITCHES): the measured engine and xferlab.copy (the defaults) against
engines made alike with one option changed, in the same trials: start = "caller" (the caller
fills its copy's first buffer with the helpers it wakes), lock = "spin" (a helper finding the
engine's lock taken keeps trying before it sleeps) and wake = "call" (the helpers wake as the
call enters the module, not when the copy reaches the engine). For each measured engine the section
also brackets the copy with the caller's own clock (time.monotonic_ns(), which the engine's
moments share): from the call to the copy's arrival in the engine, from its return in the
engine to the call's, the time timed_threads adds around the call (its thread's start and
join; printed for the page-locked reference too), and the first helper's wake-up after the
arrival. One caller's limit at the link's rate through the engine's own span (span_limit) is
timed as the reference is: the reference's time around its call counts in it, since P's rate
holds it; the gap to it is taken apart (GAP_PARTS).
"""
import random
import statistics
import threading
import time

import numpy as np

from .common import MiB, Buffers, make_engine, progress, timed_threads


def engine_shape(ctx):
    """(N helpers, D DMA bytes, C piece bytes, buffers) of an engine made as the shared one is."""
    s = ctx.xferlab_engine_stats
    dma = s["dma"] if isinstance(s["dma"], int) else s["chunk_to_device"]
    return int(s["threads"]), int(dma), int(s["chunk_to_device"]), int(s["buffers"])


class Parts:
    """The page-locked ring the DMA loop reads, the fill threads' own buffers, one stream."""

    def __init__(self, ctx, n, helpers, dma, piece, ring):
        cupy = ctx.cupy
        self.cupy, self.runtime = cupy, cupy.cuda.runtime
        self.n, self.helpers, self.dma, self.piece = n, helpers, dma, piece
        self.ring_mem = [cupy.cuda.alloc_pinned_memory(dma) for _ in range(max(ring, 2))]
        self.ring = [np.frombuffer(m, dtype=np.uint8, count=dma) for m in self.ring_mem]
        for r in self.ring:
            r[...] = 7  # first touch, never timed
        self.dev = cupy.empty(n, dtype=cupy.uint8)
        self.stream = cupy.cuda.Stream(non_blocking=True)
        # Each filler: a pageable source of its share and two page-locked buffers of a DMA.
        share = max(piece, (n // helpers) // piece * piece)
        self.sources = [np.full(share, 3, dtype=np.uint8) for _ in range(helpers)]
        self.fill_mem = [[cupy.cuda.alloc_pinned_memory(dma) for _ in range(2)]
                         for _ in range(helpers)]
        self.fills = [[np.frombuffer(m, dtype=np.uint8, count=dma) for m in mems]
                      for mems in self.fill_mem]
        for pair in self.fills:
            for f in pair:
                f[...] = 0

    def dma_loop(self):
        """S bytes to the device in DMAs of D from the ring, one stream; seconds."""
        kind = self.runtime.memcpyHostToDevice
        t0 = time.perf_counter()
        for k, at in enumerate(range(0, self.n - self.dma + 1, self.dma)):
            src = self.ring[k % len(self.ring)]
            self.runtime.memcpyAsync(self.dev.data.ptr + at, src.ctypes.data, self.dma, kind,
                                     self.stream.ptr)
        self.stream.synchronize()
        return time.perf_counter() - t0

    def fill(self, who, stop=None):
        """Filler `who` copies its source into its page-locked buffers, a piece at a time; all
        of it once, or round and round until `stop` is set. Returns the bytes copied."""
        src, bufs, piece, done = self.sources[who], self.fills[who], self.piece, 0
        while True:
            for at in range(0, src.size - piece + 1, piece):
                dst = bufs[(at // self.dma) % 2]
                off = at % self.dma
                if off + piece <= dst.size:
                    np.copyto(dst[off:off + piece], src[at:at + piece])
                    done += piece
                if stop is not None and stop.is_set():
                    return done
            if stop is None:
                return done

    def fill_rate(self, helpers):
        """Bytes per second of `helpers` fillers, each through its share once."""
        counts = [0] * helpers

        def one(who):
            counts[who] = self.fill(who)

        took = timed_threads(lambda who: one(who), list(range(helpers)), 1)
        return sum(counts) / took

    def while_dma(self):
        """(fill rate, link rate) with the N fillers and the DMA loop at once."""
        stop, counts, go = threading.Event(), [0] * self.helpers, threading.Barrier(
            self.helpers + 1)

        def one(who):
            go.wait()
            counts[who] = self.fill(who, stop)

        ts = [threading.Thread(target=one, args=(w,)) for w in range(self.helpers)]
        for t in ts:
            t.start()
        go.wait()
        t0 = time.perf_counter()
        link = self.dma_loop()
        stop.set()
        for t in ts:
            t.join()
        took = time.perf_counter() - t0
        return sum(counts) / took, self.n / link


def engine_fill(ctx, source, helpers, dma, piece, ring):
    """Bytes per second of the engine's own `helpers` C++ helpers filling its buffers from
    `source` with no DMA (the test build's module only; None elsewhere)."""
    testing = getattr(ctx.xferlab._core, "_testing", None)
    if testing is None:
        return None
    got = testing.fill_alone(source, helpers=helpers, dma=dma, piece=piece, buffers=ring)
    assert got["copied_bytes"] == source.nbytes
    return source.nbytes / got["seconds"]


EDGES = ("to_first_dma_us", "dma_span_us", "after_last_dma_us", "link_starved_us")


def mean_between(b, a, key, count, none=0.0):
    """The mean of `key` over the copies counted by `count` between two running means `b` and
    `a` (parts of stats()); `none` where no copy came between."""
    n = a[count] - b[count]
    return (a[key] * a[count] - b[key] * b[count]) / n if n > 0 else none


def copy_edges(before, after):
    """The edges (us) of the copies between two stats(), from their running means."""
    return {k: mean_between(before["edges"], after["edges"], k, "copies") for k in EDGES}


# Where one caller's time went outside the engine (us): from the call on the caller's thread to
# the copy's arrival in the engine, from its return in the engine to the call's, and the rest of
# the timed span (the thread's start and join, the same for the reference); the first helper's
# wake-up after the arrival; the share of the bytes the caller copied itself (start="caller").
OUTSIDE = ("call_to_arrival_us", "finished_to_return_us", "around_call_us", "to_first_helper_us",
           "caller_share")
# Before the first DMA (us from the arrival): the helpers that took work, the last of them, the
# last piece of the first buffer done, the slowest piece.
FIRST_FILL = ("helpers_woken", "to_last_wake_us", "to_fill_done_us", "slowest_piece_us")


def bracketed(fn, buffers):
    """(seconds timed as timed_threads times it, monotonic ns at the call and at its return)."""
    marks = {}

    def one(b):
        marks["call"] = time.monotonic_ns()
        fn(b)
        marks["back"] = time.monotonic_ns()

    return timed_threads(one, [buffers], 1), marks["call"], marks["back"]


# Each switch: its name in the rows (", start=caller"), the option it sets against the defaults.
SWITCHES = ((", start=caller", (("start", "caller"),)), (", lock=spin", (("lock", "spin"),)),
            (", wake=call", (("wake", "call"),)))
LOCK = ("contended", "slept")


def lock_counts(before, after):
    """The engine's lock found taken, and slept for, between two stats()."""
    return {k: after["lock"][k] - before["lock"][k] for k in LOCK}


def measured_copy(engine, buffers, n, helpers):
    """One caller's copy through a measured engine: (its rate, the helpers' fill rate while the
    link read, its edges and where its time went outside them, in us)."""
    before = engine.stats()
    took, call, back = bracketed(lambda b: engine.copy(b.cupy, b.pageable), buffers)
    after = engine.stats()
    h0, h1 = before["helpers"], after["helpers"]
    copying = (h1["copying_s"] - h0["copying_s"]) / helpers  # each helper's share, in parallel
    fill = (h1["copied_bytes"] - h0["copied_bytes"]) / copying if copying > 0 else 0.0
    edges = copy_edges(before, after)
    last = after["last_copy_ns"]
    edges.update(
        call_to_arrival_us=(last["arrived"] - call) / 1e3,
        finished_to_return_us=(back - last["finished"]) / 1e3,
        around_call_us=took * 1e6 - (back - call) / 1e3,
        to_first_helper_us=mean_between(before["edges"], after["edges"], "to_first_helper_us",
                                        "woke", none=-1.0),
        caller_share=(after["callers"]["copied_bytes"] - before["callers"]["copied_bytes"]) / n,
        heads_ups=after["heads_ups"] - before["heads_ups"],
        **{"lock_" + k: v for k, v in lock_counts(before, after).items()})
    for key in FIRST_FILL:
        edges[key] = mean_between(before["first_fill"], after["first_fill"], key, "copies",
                                  none=-1.0)
    return n / took, fill, edges


def pinned_outside(pinned, buffers):
    """The reference's own time around its call (us), as around_call_us is the engine's."""
    took, call, back = bracketed(pinned, buffers)
    return took * 1e6 - (back - call) / 1e3


def span_limit(S, D, P, FN, span_us, drain_us, around_us):
    """One caller's limit x the reference where the link, once the first DMA is out, carries
    the copy at the rate it kept through the measured engine's span (the link while the
    helpers fill as fast as it drains): the first fill at the helpers' own rate, the span,
    the drain, timed as the reference is timed (`around_us`: its thread's start and join,
    which the reference's rate P holds and no engine can avoid). Holds where the link did not
    wait for the helpers inside the span."""
    return (S / P) / (D / FN + (span_us + drain_us + around_us) * 1e-6)


def model(S, D, P, L, Lw, FN, FNd, callers=1):
    """The model's limit x the page-locked reference for `callers` callers of S bytes."""
    total = callers * S
    t = D / FN + max(total / Lw, (total - D) / FNd + D / L)
    return (total / P) / t


def run(ctx, results):
    n, trials = ctx.n, ctx.trials
    with ctx.xferlab.Engine(device=0) as e:  # as the shared one is made
        ctx.xferlab_engine_stats = e.stats()
    helpers, dma, piece, ring = engine_shape(ctx)
    parts = Parts(ctx, n, helpers, dma, piece, ring)
    caller = Buffers(ctx.cupy, ctx.torch, n, 5)
    four = [caller] + [Buffers(ctx.cupy, ctx.torch, n, 6 + k) for k in range(3)]
    pinned = ctx.memcpy.pinned_fns()[0]
    copy = lambda b: ctx.xferlab.copy(b.cupy, b.pageable)  # noqa: E731
    measured = ctx.xferlab.Engine(device=0, measure=True)  # as the shared one, measured
    # Each switch against the defaults, measured and not (each engine in a registry of its own)
    switched = {suffix: (make_engine(ctx.xferlab, setting, "limit" + suffix[2:] + "-measured",
                                     measure=True),
                         make_engine(ctx.xferlab, setting, "limit" + suffix[2:]))
                for suffix, setting in SWITCHES}
    engine_parts = engine_fill(ctx, caller.pageable, 1, dma, piece, ring) is not None
    steps = {
        "P": lambda: n / timed_threads(pinned, [caller], 1),
        "L": lambda: n / parts.dma_loop(),
        "F1py": lambda: parts.fill_rate(1),
        "FNpy": lambda: parts.fill_rate(helpers),
        "during": parts.while_dma,
        "one caller": lambda: n / timed_threads(copy, [caller], 1),
        "P around": lambda: pinned_outside(pinned, caller),
        "four callers": lambda: 4 * n / timed_threads(copy, four, 1),
    }
    for suffix, (_, plain) in switched.items():
        steps["one caller" + suffix] = lambda e=plain: n / timed_threads(
            lambda b: e.copy(b.cupy, b.pageable), [caller], 1)
    if engine_parts:
        steps["F1"] = lambda: engine_fill(ctx, caller.pageable, 1, dma, piece, ring)
        steps["FN"] = lambda: engine_fill(ctx, caller.pageable, helpers, dma, piece, ring)
        steps["measured"] = lambda: measured_copy(measured, caller, n, helpers)
        for suffix, (m, _) in switched.items():
            steps["measured" + suffix] = lambda e=m: measured_copy(e, caller, n, helpers)
    for step in steps.values():  # warm-up: nothing timed before a method's first run
        step()
    rows = []
    for trial in range(trials):
        order = list(steps)
        random.Random(58 + trial).shuffle(order)
        got = {}
        for name in order:
            got[name] = steps[name]()
        FNdpy, Lw = got.pop("during")
        row = dict(got, FNdpy=FNdpy, Lw=Lw, trial=trial)
        for suffix in switched:
            row["one caller" + suffix + " x1"] = row["one caller" + suffix] / row["P"]
        if engine_parts:
            row["one caller, measured engine"], row["FNd"], row["edges"] = row.pop("measured")
            for suffix in switched:
                rate, _, row["edges" + suffix] = row.pop("measured" + suffix)
                row["one caller, measured engine" + suffix] = rate
            for suffix in ("",) + tuple(switched):
                e, rate = row["edges" + suffix], row["one caller, measured engine" + suffix]
                row["span limit x1" + suffix] = span_limit(n, dma, row["P"], row["FN"],
                                                           e["dma_span_us"],
                                                           e["after_last_dma_us"],
                                                           row["P around"])
                row["measured engine x1" + suffix] = rate / row["P"]
        else:
            row.update(F1=row["F1py"], FN=row["FNpy"], FNd=FNdpy)
        for callers, key in ((1, "one caller"), (4, "four callers")):
            row[f"model x{callers}"] = model(n, dma, row["P"], row["L"], Lw, row["FN"], row["FNd"],
                                              callers)
            row[f"measured x{callers}"] = row[key] / row["P"]
        rows.append(row)
        progress("limit", trial, trials)
    for e in [measured] + [e for pair in switched.values() for e in pair]:
        e.close()
    # The bytes arrived (the last copies were of the caller's own pattern).
    assert caller.cupy[:16].get().tolist() == [caller.pageable[0]] * 16
    results["limit"] = {"helpers": helpers, "dma": dma, "piece": piece, "buffers": ring,
                        "bytes": n, "engine_parts": engine_parts, "rows": rows}
    print_limit(results["limit"], trials)


def print_measured(limit, rows, name, suffix, key):
    """The measured engine `name` (the defaults, or a switch): its edges, the link through its
    span, where its time went outside the engine, its lock, its limit and the gap to it."""
    def med_of(k):
        return statistics.median(r[key][k] for r in rows)

    rate = statistics.median(r["one caller, measured engine" + suffix] for r in rows)
    inside = [r[key]["link_starved_us"] - r[key]["to_first_dma_us"] -
              r[key]["after_last_dma_us"] for r in rows]
    spans = [limit["bytes"] / (r[key]["dma_span_us"] * 1e-6) for r in rows]
    print(f"   measured engine, one caller, {name}: {rate / 1e9:.1f} GB/s; its copy "
          "(us, medians): " + ", ".join(f"{k} {med_of(k):.0f}" for k in EDGES))
    print("      outside the engine (us, medians): " +
          ", ".join(f"{k} {med_of(k):.0f}" for k in OUTSIDE[:4]) +
          f"; the caller copied {100 * med_of('caller_share'):.1f}% of the bytes")
    print("      before the first DMA (medians): " +
          ", ".join(f"{k} {med_of(k):.0f}" for k in FIRST_FILL) +
          "; the engine's lock per copy (medians): " +
          ", ".join(f"{k} {med_of('lock_' + k):.0f}" for k in LOCK))
    woken_early = sum(r[key]["heads_ups"] > 0 for r in rows)
    if woken_early:
        # With wake="call" the helpers are up before the copy arrives: the wake-up figures
        # count only helpers woken after it, so they read 0 (to_first_helper -1) where none was.
        print(f"      the call woke the helpers before the copy arrived in {woken_early} of "
              f"{len(rows)} trials (heads-ups): helpers_woken, to_last_wake_us and "
              "to_first_helper_us count only helpers woken after the arrival (0, and -1 for "
              "to_first_helper_us, where none was)")
    print(f"      the link through the span: {statistics.median(spans) / 1e9:.1f} GB/s "
          f"({min(spans) / 1e9:.1f}-{max(spans) / 1e9:.1f}); the link waited for the "
          f"helpers inside the span {statistics.median(inside):.0f} us "
          f"({min(inside):.0f} to {max(inside):.0f})")
    limits = [r["span limit x1" + suffix] for r in rows]
    gaps = [r["measured engine x1" + suffix] / r["span limit x1" + suffix] - 1 for r in rows]
    print(f"      one caller's limit at that link rate, the first fill at FN, timed as the "
          f"reference: "
          f"{statistics.median(limits):.3f} x pinned; the measured engine "
          f"{statistics.median(r['measured engine x1' + suffix] for r in rows):.3f}, "
          f"gap {100 * statistics.median(gaps):.1f}% ({100 * min(gaps):.1f}% to "
          f"{100 * max(gaps):.1f}%)")
    parts = [gap_parts(limit, r, key, suffix) for r in rows]
    print("      the gap, % of the measured copy's time (medians): " + ", ".join(
        f"{k} {100 * statistics.median(p[k] for p in parts):.2f}" for k in GAP_PARTS))


# Where the measured engine's time went past the span limit's (D / FN + span + drain + the
# reference's time around its call), each part x the copy's whole time: the timed thread's start
# and join past the reference's; the way from the call into the engine; the first DMA's wait
# past one buffer's fill at FN; the way back to the caller.
GAP_PARTS = ("around_past_the_reference's", "call_to_arrival", "first_dma_past_fill",
             "back_to_caller")


def gap_parts(limit, row, key, suffix):
    e = row[key]
    took_us = limit["bytes"] / row["one caller, measured engine" + suffix] * 1e6
    fill_us = limit["dma"] / row["FN"] * 1e6
    return {"around_past_the_reference's": (e["around_call_us"] - row["P around"]) / took_us,
            "call_to_arrival": e["call_to_arrival_us"] / took_us,
            "first_dma_past_fill": (e["to_first_dma_us"] - fill_us) / took_us,
            "back_to_caller": e["finished_to_return_us"] / took_us}


def print_limit(limit, trials):
    rows = limit["rows"]

    def med(key):
        return statistics.median(r[key] for r in rows)

    print(f"\n== limit of a staged copy to the device (issue #58): {limit['helpers']} helpers, "
          f"DMAs of {limit['dma'] // MiB} MiB from {limit['piece'] // MiB} MiB pieces, "
          f"{limit['bytes'] // MiB} MiB, median of {trials} interleaved trials")
    who = ("the engine's C++ helpers" if limit.get("engine_parts")
           else "Python threads (not the test build's module)")
    print(f"   parts (GB/s; F1, FN, FNd by {who}): " + ", ".join(
        f"{k} {med(k) / 1e9:.1f}" for k in ("P", "L", "Lw", "F1", "FN", "FNd")))
    print("   Python threads' fills (GB/s): " + ", ".join(
        f"{k} {med(k) / 1e9:.1f}" for k in ("F1py", "FNpy", "FNdpy")))
    switches = [suffix for suffix, _ in SWITCHES if "one caller" + suffix in rows[0]]
    if limit.get("engine_parts"):
        for suffix in [""] + switches:
            if "edges" + suffix in rows[0]:
                print_measured(limit, rows, suffix[2:] or "the defaults", suffix,
                               "edges" + suffix)
    around = [r["P around"] for r in rows]
    print(f"   the reference's time around its call: {statistics.median(around):.0f} us "
          f"({min(around):.0f} to {max(around):.0f})")
    print(f"   xferlab.copy, one caller, the defaults: {med('measured x1'):.3f} x pinned")
    for suffix in switches:
        pairs = [r["one caller" + suffix] / r["one caller"] for r in rows]
        print(f"   an engine with {suffix[2:]}, one caller: "
              f"{med('one caller' + suffix + ' x1'):.3f} x pinned; / the defaults paired by "
              f"trial {statistics.median(pairs):.3f} ({min(pairs):.3f} to {max(pairs):.3f}), "
              f"higher in {sum(p > 1 for p in pairs)} of {len(pairs)}")
    print(f"{'callers':>8} {'model x pinned':>15} {'measured x pinned':>18} {'gap':>7} "
          f"{'paired range':>16}")
    for callers in (1, 4):
        gaps = [r[f"measured x{callers}"] / r[f"model x{callers}"] - 1 for r in rows]
        print(f"{callers:>8} {med(f'model x{callers}'):15.3f} "
              f"{med(f'measured x{callers}'):18.3f} {100 * statistics.median(gaps):6.1f}% "
              f"({100 * min(gaps):.1f}% to {100 * max(gaps):.1f}%)")
